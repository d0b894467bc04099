package cmd

import (
	"errors"
	"fmt"
	"io"

	"gopi/internal/atomicfile"
	"gopi/pkg/ai"
	"gopi/pkg/assemble"
	"gopi/pkg/export"
	"gopi/pkg/input"
	"gopi/pkg/rpc"
	"gopi/pkg/session"
)

// rpcHost is a conversation's host as the rpc mode asks for it: the
// Assembly's Runtimes, plus its models, the prompt's checks, the
// templates and skills, and the session's export.
type rpcHost struct {
	h   *host
	sys *System
}

// Open builds the Runtime w asks for with the Assembly's Reopen: a leaf,
// model, thinking level or new session, another session file to switch
// to, a fork of this one.
func (r *rpcHost) Open(w rpc.Want) (rpc.Opened, error) {
	if (w.Session != "" || w.Fork) && r.h.o.noSession {
		return rpc.Opened{}, errors.New("gopi rpc runs with --no-session: it opens and forks no session files")
	}
	o, err := r.h.open(assemble.Want{Leaf: w.Leaf, ModelRef: w.Model, Thinking: w.Thinking, NewSession: w.NewSession, Parent: w.Parent,
		SwitchTo: w.Session, Fork: w.Fork})
	return rpc.Opened(o), err
}

// Models are the current model, the catalog's models of its provider and
// the models the settings declare (the Assembly's own settings: its
// folder, --bare).
func (r *rpcHost) Models() []ai.Info { return r.h.a.Models() }

// Expand checks and expands a prompt, steer or follow_up's text as gopi
// run does its prompt: bounded by maxPromptBytes, expanded within it.
func (r *rpcHost) Expand(text string) (string, error) {
	return promptInput(r.h.sys, r.h.set, r.h.a.Catalog(), nil, false).Message(text)
}

// CheckImage refuses what run refuses as an @file image.
func (r *rpcHost) CheckImage(what, mime string, data []byte) error {
	return input.CheckImage(what, mime, data)
}

// Commands are the prompt templates and skills.
func (r *rpcHost) Commands() []rpc.Command {
	var out []rpc.Command
	for _, t := range r.h.a.Catalog().Templates {
		out = append(out, rpc.Command{Name: t.Name, Description: t.Description, Source: "prompt",
			SourceInfo: rpc.SourceInfo{Path: t.Path, Source: "local", Scope: t.Source, Origin: "top-level"}})
	}
	for _, s := range r.h.a.Catalog().Skills {
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
	return rpc.Opened(r.h.opened(rt)), nil
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
