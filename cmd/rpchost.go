package cmd

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"gopi/internal/atomicfile"
	"gopi/pkg/ai"
	"gopi/pkg/assemble"
	"gopi/pkg/export"
	"gopi/pkg/input"
	"gopi/pkg/mode"
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
func (r *rpcHost) Open(w mode.Want) (mode.Opened, error) {
	if w.Session == "" && !w.Fork {
		return r.h.open(w)
	}
	if r.h.o.noSession {
		return mode.Opened{}, errors.New("gopi rpc runs with --no-session: it opens and forks no session files")
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
			return mode.Opened{}, fmt.Errorf("sessionPath %s: no such session file", path)
		}
		// The switched session's own model and thinking level, as pi.
		*ss = assemble.SessionSettings{Path: path, Continue: true}
		want.Thinking = ""
	}
	rt, err := r.h.a.Reopen(want)
	if err != nil {
		return mode.Opened{}, err
	}
	return mode.Opened{Runtime: rt, Model: r.h.a.Model().Info, File: r.h.a.File(), Thinking: r.h.a.Thinking()}, nil
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
	return promptInput(r.h.sys, r.h.s, r.h.cat, nil, false).Message(text)
}

// CheckImage refuses what run refuses as an @file image.
func (r *rpcHost) CheckImage(what, mime string, data []byte) error {
	return input.CheckImage(what, mime, data)
}

// Commands are the prompt templates and skills.
func (r *rpcHost) Commands() []mode.RPCCommand {
	var out []mode.RPCCommand
	for _, t := range r.h.cat.Templates {
		out = append(out, mode.RPCCommand{Name: t.Name, Description: t.Description, Source: "prompt",
			SourceInfo: mode.RPCSourceInfo{Path: t.Path, Source: "local", Scope: t.Source, Origin: "top-level"}})
	}
	for _, s := range r.h.cat.Skills {
		out = append(out, mode.RPCCommand{Name: "skill:" + s.Name, Description: s.Description, Source: "skill",
			SourceInfo: mode.RPCSourceInfo{Path: s.Path, Source: "local", Scope: s.Source, Origin: "top-level"}})
	}
	return out
}

// SetAutoCompaction rebuilds the Runtime at its leaf with automatic
// compaction switched.
func (r *rpcHost) SetAutoCompaction(on bool, w mode.Want) (mode.Opened, error) {
	c := r.h.a.Compaction()
	c.Disabled = !on
	rt, err := r.h.a.Reopen(assemble.Want{Leaf: w.Leaf, Thinking: w.Thinking, Compaction: &c})
	if err != nil {
		return mode.Opened{}, err
	}
	tracePrompts(r.h.sys, r.h.s.telemetry, r.h.a, rt) // telemetry.go
	return mode.Opened{Runtime: rt, Model: r.h.a.Model().Info, File: r.h.a.File(), Thinking: r.h.a.Thinking()}, nil
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
	err = atomicfile.WriteFile(dest, 0o600, func(w io.Writer) error {
		_, err := export.Render(w, f, export.Options{})
		return err
	})
	if err != nil {
		return "", fmt.Errorf("outputPath %s: %v", dest, err)
	}
	return dest, nil
}
