package rpc

import (
	"errors"
	"fmt"
	"io"

	"gopi/internal/atomicfile"
	"gopi/pkg/ai"
	"gopi/pkg/assemble"
	"gopi/pkg/export"
	"gopi/pkg/input"
	"gopi/pkg/resources"
	"gopi/pkg/runtime"
	"gopi/pkg/session"
)

// HostConfig is what an AssemblyHost takes beside its Assembly, the
// values the command line resolved.
type HostConfig struct {
	// Catalog holds the prompt templates and skills (nil: none).
	Catalog *resources.Catalog
	// MaxPrompt bounds a prompt, steer or follow_up's text in bytes, as
	// gopi run's prompt; MaxPromptOrigin names the setting that set it,
	// as the refusal quotes it ("--max-prompt-bytes").
	MaxPrompt       int
	MaxPromptOrigin string
	// NoSession: the Assembly keeps no session file (--no-session), so
	// switching and forking sessions is refused.
	NoSession bool
	// ExportDest checks export_html's outputPath (out, "" for the default
	// name) for the session file's page and returns the file to write.
	ExportDest func(out, file string) (string, error)
}

// AssemblyHost is the Host over one Assembly: its Reopen builds every
// Runtime, its models are set_model's, and the prompt's checks, the
// templates and skills and the export are the command line's, as
// HostConfig gives them.
type AssemblyHost struct {
	a   *assemble.Assembly
	cfg HostConfig
	in  *input.Reader
}

// NewHost is the Host over a, an opened Assembly.
func NewHost(a *assemble.Assembly, cfg HostConfig) *AssemblyHost {
	in := &input.Reader{Limit: cfg.MaxPrompt, LimitOrigin: cfg.MaxPromptOrigin}
	if cfg.Catalog != nil {
		in.Expander = cfg.Catalog
	}
	return &AssemblyHost{a: a, cfg: cfg, in: in}
}

// First is the Assembly's first Runtime as the server starts with it.
func (h *AssemblyHost) First() Opened {
	return Opened{Runtime: h.a.Runtime(), Model: h.a.Model().Info, File: h.a.File()}
}

// Open builds the Runtime w asks for with the Assembly's Reopen: a leaf,
// model, thinking level or new session, another session file to switch
// to, a fork of this one.
func (h *AssemblyHost) Open(w Want) (Opened, error) {
	if (w.Session != "" || w.Fork) && h.cfg.NoSession {
		return Opened{}, errors.New("gopi rpc runs with --no-session: it opens and forks no session files")
	}
	rt, err := h.a.Reopen(assemble.Want{Leaf: w.Leaf, ModelRef: w.Model, Thinking: w.Thinking, NewSession: w.NewSession,
		Parent: w.Parent, SwitchTo: w.Session, Fork: w.Fork})
	if err != nil {
		return Opened{}, err
	}
	return h.opened(rt), nil
}

// opened is rt with the Assembly's model, session file and thinking
// level.
func (h *AssemblyHost) opened(rt *runtime.Runtime) Opened {
	return Opened{Runtime: rt, Model: h.a.Model().Info, File: h.a.File(), Thinking: h.a.Thinking()}
}

// Models are the current model, the catalog's models of its provider and
// the models the settings declare (the Assembly's own settings: its
// folder, --bare).
func (h *AssemblyHost) Models() []ai.Info { return h.a.Models() }

// Model builds provider/id with the Assembly's settings, as a switch
// of model resolves it.
func (h *AssemblyHost) Model(provider, id string) (ai.Model, ai.Info, error) {
	ch, err := h.a.ChooseModel(provider, id)
	if err != nil {
		return nil, ai.Info{}, err
	}
	return ch.Model, ch.Info, nil
}

// Expand checks and expands a prompt, steer or follow_up's text as gopi
// run does its prompt: bounded by MaxPrompt, expanded within it.
func (h *AssemblyHost) Expand(text string) (string, error) { return h.in.Message(text) }

// CheckImage refuses what run refuses as an @file image.
func (h *AssemblyHost) CheckImage(what, mime string, data []byte) error {
	return input.CheckImage(what, mime, data)
}

// Commands are the prompt templates and skills.
func (h *AssemblyHost) Commands() []Command {
	cat := h.cfg.Catalog
	if cat == nil {
		return nil
	}
	var out []Command
	for _, t := range cat.Templates {
		out = append(out, Command{Name: t.Name, Description: t.Description, Source: "prompt",
			SourceInfo: SourceInfo{Path: t.Path, Source: "local", Scope: t.Source, Origin: "top-level"}})
	}
	for _, s := range cat.Skills {
		out = append(out, Command{Name: "skill:" + s.Name, Description: s.Description, Source: "skill",
			SourceInfo: SourceInfo{Path: s.Path, Source: "local", Scope: s.Source, Origin: "top-level"}})
	}
	return out
}

// SetAutoCompaction rebuilds the Runtime at its leaf with automatic
// compaction switched.
func (h *AssemblyHost) SetAutoCompaction(on bool, w Want) (Opened, error) {
	c := h.a.Compaction()
	c.Disabled = !on
	rt, err := h.a.Reopen(assemble.Want{Leaf: w.Leaf, Thinking: w.Thinking, Compaction: &c})
	if err != nil {
		return Opened{}, err
	}
	return h.opened(rt), nil
}

// AutoCompaction says whether automatic compaction is on.
func (h *AssemblyHost) AutoCompaction() bool { return !h.a.Compaction().Disabled }

// Export writes the session as gopi session export does.
func (h *AssemblyHost) Export(store session.Store, file, out string) (string, error) {
	if out == "-" {
		return "", errors.New(`outputPath "-": stdout carries the protocol; give a file`)
	}
	if file == "" {
		file = store.Header().ID + ".jsonl"
	}
	dest, err := h.cfg.ExportDest(out, file)
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
