package cmd

import (
	"errors"
	"fmt"
	"io"

	"gopi/pkg/ai"
	"gopi/pkg/assemble"
	"gopi/pkg/export"
	"gopi/pkg/mode"
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
func (r *rpcHost) Open(w mode.Want) (mode.Opened, error) {
	if (w.Session != "" || w.Fork) && r.h.o.noSession {
		return mode.Opened{}, errors.New("gopi rpc runs with --no-session: it opens and forks no session files")
	}
	return r.h.open(w)
}

// Models are the current model, the catalog's models of its provider and
// the models the settings declare (the Assembly's own settings: its
// folder, --bare).
func (r *rpcHost) Models() []ai.Info { return r.h.a.Models() }

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
	return r.h.opened(rt), nil
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
