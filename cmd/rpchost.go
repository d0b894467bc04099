package cmd

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"gopi/pkg/ai"
	"gopi/pkg/assemble"
	"gopi/pkg/chat"
	"gopi/pkg/export"
	"gopi/pkg/rpc"
	"gopi/pkg/session"
)

// rpcHost is the chat's host (its Assembly) as the rpc mode asks for it:
// the same Runtimes, plus another session file, a fork of this one, and
// automatic compaction switched.
type rpcHost struct {
	h   *chatHost
	sys *System
	c   *cobra.Command
}

// Open builds the Runtime w asks for: chat's open, or the Assembly's
// Reopen on another session (a file to switch to, a fork of this one).
func (r *rpcHost) Open(w rpc.Want) (rpc.Opened, error) {
	if w.Session == "" && !w.Fork {
		o, err := r.h.openParent(chat.Want{Leaf: w.Leaf, Model: w.Model, Thinking: w.Thinking, NewSession: w.NewSession}, w.Parent)
		return rpc.Opened(o), err
	}
	if r.h.o.noSession {
		return rpc.Opened{}, errors.New("gopi rpc runs with --no-session: it opens and forks no session files")
	}
	// A fork or clone is a path copy written next to the current file, as pi's.
	ss := &assemble.SessionSettings{Fork: r.h.a.File(), Leaf: w.Leaf, Branch: true, Dir: filepath.Dir(r.h.a.File())}
	want := assemble.Want{Thinking: w.Thinking, Session: ss}
	if w.Session != "" {
		path := w.Session
		if looksLikePath(path) && !filepath.IsAbs(path) {
			path = filepath.Join(r.h.s.cwd, path)
		}
		if _, err := os.Stat(path); looksLikePath(path) && errors.Is(err, fs.ErrNotExist) {
			return rpc.Opened{}, fmt.Errorf("sessionPath %s: no such session file", path)
		}
		// The switched session's own model and thinking level, as pi.
		*ss = assemble.SessionSettings{Path: path, Continue: true}
		want.Thinking = ""
	}
	rt, err := r.h.a.Reopen(want)
	if err != nil {
		return rpc.Opened{}, err
	}
	return rpc.Opened{Runtime: rt, Model: r.h.a.Model().Info, File: r.h.a.File(), Thinking: r.h.a.Thinking()}, nil
}

// Models are the current model, the catalog's models of its provider and
// the models the settings declare.
func (r *rpcHost) Models() []ai.Info {
	cur := r.h.a.Model().Info
	out := []ai.Info{cur}
	listed, err := listModels(r.sys, r.c, "")
	if err != nil {
		return out
	}
	for _, m := range listed {
		if (m.Provider == cur.Provider || m.Declared) && !(m.Provider == cur.Provider && m.ID == cur.ID) {
			info := m.Info
			if info.Provider == cur.Provider && info.BaseURL == "" {
				info.BaseURL = cur.BaseURL // one provider, one address
			}
			out = append(out, info)
		}
	}
	return out
}

// Expand checks and expands a prompt, steer or follow_up's text as gopi
// run does its prompt: bounded by maxPromptBytes, expanded within it.
func (r *rpcHost) Expand(text string) (string, error) {
	if len(text) > r.h.s.maxPrompt {
		return "", promptTooLarge("the message", r.h.s.maxPrompt, r.h.s.cfg)
	}
	return expandPrompt(r.h.cat, text, r.h.s)
}

// CheckImage refuses what run refuses as an @file image.
func (r *rpcHost) CheckImage(what, mime string, data []byte) error {
	return checkImage(what, mime, data)
}

// Commands are the prompt templates and skills.
func (r *rpcHost) Commands() []rpc.Command {
	var out []rpc.Command
	for _, t := range r.h.cat.Templates {
		out = append(out, rpc.Command{Name: t.Name, Description: t.Description, Source: "prompt",
			SourceInfo: rpc.SourceInfo{Path: t.Path, Source: "local", Scope: t.Source, Origin: "top-level"}})
	}
	for _, s := range r.h.cat.Skills {
		out = append(out, rpc.Command{Name: "skill:" + s.Name, Description: s.Description, Source: "skill",
			SourceInfo: rpc.SourceInfo{Path: s.Path, Source: "local", Scope: s.Source, Origin: "top-level"}})
	}
	return out
}

// SetAutoCompaction rebuilds the Runtime at its leaf with automatic
// compaction switched.
func (r *rpcHost) SetAutoCompaction(on bool, w rpc.Want) (rpc.Opened, error) {
	c := r.h.a.Compaction()
	c.Disabled = !on
	rt, err := r.h.a.Reopen(assemble.Want{Leaf: w.Leaf, Thinking: w.Thinking, Compaction: &c})
	if err != nil {
		return rpc.Opened{}, err
	}
	tracePrompts(r.h.sys, r.h.s.telemetry, r.h.a, rt) // telemetry.go
	return rpc.Opened{Runtime: rt, Model: r.h.a.Model().Info, File: r.h.a.File(), Thinking: r.h.a.Thinking()}, nil
}

func (r *rpcHost) AutoCompaction() bool { return !r.h.a.Compaction().Disabled }

// Export writes the session as gopi session export does.
func (r *rpcHost) Export(store session.Store, file, out string) (string, error) {
	if out == "-" {
		return "", errors.New(`outputPath "-": stdout carries the protocol; give a file`)
	}
	if file == "" {
		file = store.Header().ID + ".jsonl"
	}
	dest, err := exportDest(r.sys, "outputPath", out, file)
	if err != nil {
		return "", err
	}
	f := &session.File{Path: file, Header: store.Header(), Entries: store.Entries()}
	err = replaceFile(dest, func(w io.Writer) error {
		_, err := export.Render(w, f, export.Options{})
		return err
	})
	if err != nil {
		return "", fmt.Errorf("outputPath %s: %v", dest, err)
	}
	return dest, nil
}
