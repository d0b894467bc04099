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
	"gopi/pkg/export"
	"gopi/pkg/mode"
	"gopi/pkg/session"
)

// rpcHost is chat's host (chatHost) as the rpc mode asks for it: the
// same Runtimes, plus another session file and a fork of this one.
type rpcHost struct {
	h   *chatHost
	sys *System
	c   *cobra.Command
}

// Open builds the Runtime w asks for (chatHost.open, which opens the
// store storeFor names).
func (r *rpcHost) Open(w mode.Want) (mode.Opened, error) {
	if w.Session != "" && looksLikePath(w.Session) && !filepath.IsAbs(w.Session) {
		w.Session = filepath.Join(r.h.s.cwd, w.Session)
	}
	if w.Session != "" && looksLikePath(w.Session) {
		if _, err := os.Stat(w.Session); errors.Is(err, fs.ErrNotExist) {
			return mode.Opened{}, fmt.Errorf("sessionPath %s: no such session file", w.Session)
		}
	}
	if (w.Session != "" || w.Fork) && r.h.o.noSession {
		return mode.Opened{}, errors.New("gopi rpc runs with --no-session: it opens and forks no session files")
	}
	return r.h.open(w)
}

// storeFor is the store a new Runtime of w opens: a new session, the
// session file w names, or a copy of the current one.
func (h *chatHost) storeFor(w mode.Want) *runOptions {
	switch {
	case w.Session != "":
		return &runOptions{session: w.Session, leaf: w.Leaf, cont: w.Leaf == ""}
	case w.Fork:
		return &runOptions{fork: h.p.file}
	}
	return &runOptions{noSession: h.o.noSession}
}

// Models are the current model, the catalog's models of its provider and
// the models the settings declare.
func (r *rpcHost) Models() []ai.Info {
	cur := r.h.choice.info
	out := []ai.Info{cur}
	listed, err := listModels(r.sys, r.c, "")
	if err != nil {
		return out
	}
	for _, m := range listed {
		if (m.Provider == cur.Provider || m.Declared) && !(m.Provider == cur.Provider && m.ID == cur.ID) {
			out = append(out, m.Info)
		}
	}
	return out
}

func (r *rpcHost) Expand(text string) (string, error) { return r.h.cat.Expand(text) }

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

func (r *rpcHost) SetAutoCompaction(on bool) { r.h.s.compact.Disabled = !on }
func (r *rpcHost) AutoCompaction() bool      { return !r.h.s.compact.Disabled }

// Export writes the session as gopi session export does.
func (r *rpcHost) Export(store session.Store, file, out string) (string, error) {
	if out == "-" {
		return "", errors.New(`outputPath "-": stdout carries the protocol; give a file`)
	}
	if file == "" {
		file = store.Header().ID + ".jsonl"
	}
	dest, err := exportDest(r.sys, out, file)
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
