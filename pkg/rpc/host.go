package rpc

import (
	"gopi/pkg/ai"
	"gopi/pkg/runtime"
	"gopi/pkg/session"
)

// Host is what the server needs from its host, which owns settings,
// models and session files. Every method that builds a
// Runtime leaves the current one in use when it fails.
type Host interface {
	// Open builds the Runtime w asks for: another leaf, model or thinking
	// level, a new session, another session file or a fork.
	Open(Want) (Opened, error)
	// Models are the models set_model and cycle_model choose from.
	Models() []ai.Info
	// Model builds provider/id, one of Models, for the Runtime of a run
	// going on: set_model and cycle_model during a run switch its next
	// request to it.
	Model(provider, id string) (ai.Model, ai.Info, error)
	// Expand checks a prompt, steer or follow_up's text as gopi run
	// checks a prompt (maxPromptBytes) and expands prompt templates and
	// /skill:name.
	Expand(text string) (string, error)
	// CheckImage refuses an image of a prompt, steer or follow_up (what
	// names it) that gopi run refuses as an @file: one a model would
	// refuse. data is the image, decoded.
	CheckImage(what, mime string, data []byte) error
	// Commands are the prompt templates and skills (get_commands).
	Commands() []Command
	// SetAutoCompaction builds the Runtime w asks for with automatic
	// compaction switched, for it and the later ones.
	SetAutoCompaction(on bool, w Want) (Opened, error)
	AutoCompaction() bool
	// Export writes the store as an HTML page to out ("" for the default
	// name) and returns the file written.
	Export(store session.Store, file, out string) (string, error)
}

// Command is one entry of get_commands.
type Command struct {
	Name        string     `json:"name"`
	Description string     `json:"description,omitempty"`
	Source      string     `json:"source"` // "prompt" or "skill"
	SourceInfo  SourceInfo `json:"sourceInfo"`
}

// SourceInfo says where a command comes from.
type SourceInfo struct {
	Path   string `json:"path"`
	Source string `json:"source"`
	Scope  string `json:"scope"` // "user" or "project"
	Origin string `json:"origin"`
}

// Want is the Runtime the server asks its host for when it switches
// leaf, model, thinking level or session, forks or starts a new session.
type Want struct {
	Leaf       string // the entry to continue from; "" for an empty session
	Model      string // "provider/id" to switch to; "" keeps the current one
	Thinking   ai.ThinkingLevel
	NewSession bool // start a new session (the current one is released)
	// Session, with NewSession, opens this existing session file instead
	// (rpc's switch_session); Leaf "" continues from its newest entry.
	Session string
	// Fork, with NewSession, starts the new session as a copy of the path
	// from the root to Leaf in the current session's file, its parent
	// session that file (rpc's fork, clone); Leaf "" gives an empty one.
	Fork bool
	// Parent, with NewSession, is recorded as the new session's
	// parentSession (rpc's new_session).
	Parent string
}

// Opened is a Runtime the host built for the server.
type Opened struct {
	Runtime *runtime.Runtime
	Model   ai.Info
	File    string // "" without a session file
	// Thinking is the Runtime's thinking level when the host chose
	// it (a switched session's own); "" keeps the one asked for.
	Thinking ai.ThinkingLevel
}
