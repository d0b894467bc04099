// Package acp serves the Agent Client Protocol (version 1): JSON-RPC 2.0
// over a pair of streams, one message per line, as editors (Zed,
// JetBrains) speak it to a coding agent. The agent's sessions come from a
// Host, the small interface of what the command line owns (settings,
// models, session files, MCP servers); this package maps the protocol's
// methods onto it and a Runtime's events onto session/update
// notifications. NewHost's AssemblyHost is the Host whose sessions are
// each an Assembly (pkg/assemble) of their folder, opened by a function
// from above (HostConfig.Open), which reads the settings.
// The client's fs/* and terminal/* methods are not used:
// gopi's own tools do the work.
package acp

import (
	"context"
	"errors"
	"io"
	"time"

	"gopi/pkg/ai"
	"gopi/pkg/loop"
	"gopi/pkg/runtime"
	"gopi/pkg/session"
)

// ProtocolVersion is the ACP version spoken.
const ProtocolVersion = 1

// Host opens gopi sessions. Every method is safe to call from several
// goroutines.
type Host interface {
	// New starts a new session in cwd (an absolute folder) with that
	// folder's settings, resources and hooks, and servers started beside
	// the settings' MCP servers.
	New(ctx context.Context, cwd string, servers []MCPServer) (Session, error)
	// Load opens an existing session, by id or by its file, and continues
	// from its newest entry.
	Load(ctx context.Context, cwd, id string, servers []MCPServer) (Session, error)
	// List lists the sessions of cwd, newest first.
	List(cwd string) ([]Listed, error)
}

// Session is one open gopi session.
type Session interface {
	// ID is the session's id (its header's).
	ID() string
	// Path is the entries from the root to the leaf the next prompt
	// continues from.
	Path() []session.Entry
	// Prompt runs msgs to the end; on gets each event of the run, in
	// order, on the goroutine that reports it. Cancelling ctx aborts the
	// run (tools killed, what was said kept).
	Prompt(ctx context.Context, msgs []ai.Message, on func(loop.Event)) (runtime.Result, error)
	// Name is the session's name ("" without one).
	Name() string
	// Model is the model the next prompt uses; Models the ones SetModel
	// takes ("provider/id").
	Model() ai.Info
	Models() []ai.Info
	SetModel(ref string) error
	// Thinking is the thinking level; SetThinking changes it.
	Thinking() ai.ThinkingLevel
	SetThinking(ai.ThinkingLevel) error
	// Sandbox is the sandbox mode; Sandboxes the modes SetSandbox takes.
	Sandbox() string
	Sandboxes() []string
	SetSandbox(mode string) error
	// Commands are the prompt templates and skills; Expand expands a
	// prompt that names one (/name, /skill:name).
	Commands() []Command
	Expand(text string) (string, error)
	// SetAsk makes every tool call the permission rules refuse a
	// question: ask returns true to let it run. Nil asks nothing.
	SetAsk(ask func(Permission) bool)
	// Close releases the session: its MCP servers, its lock.
	Close()
}

// Permission is a tool call the permission rules refuse.
type Permission struct {
	Tool      string
	Operation string // read, write, run or call
	Target    string // the absolute path or the command; "" for a call
	Rule      string // the rule that refuses it
}

// Listed is one session of List.
type Listed struct {
	ID, Cwd, Title string
	Updated        time.Time
}

// Command is a prompt template or a skill, offered as a slash command.
type Command struct {
	Name, Description string
}

// MCPServer is an MCP server the client asks the session to use: a
// command (stdio) or a URL (streamable HTTP).
type MCPServer struct {
	Name    string
	Command string
	Args    []string
	Env     map[string]string
	URL     string
	Headers map[string]string
}

// Options tune a Server.
type Options struct {
	// Version is gopi's version, as the client is told it.
	Version string
	// Diag gets diagnostics (stderr).
	Diag io.Writer
	// Now is the clock; nil is time.Now.
	Now func() time.Time
	// PermissionTimeout bounds the wait for a client's answer to
	// session/request_permission; zero is five minutes.
	PermissionTimeout time.Duration
	// MaxLine bounds one message; a longer line is answered with an
	// error and skipped. Zero is 64 MiB.
	MaxLine int
}

// JSON-RPC error codes.
const (
	codeParse          = -32700
	codeInvalidRequest = -32600
	codeNoMethod       = -32601
	codeInvalidParams  = -32602
	codeInternal       = -32603
	codeNotFound       = -32002
)

// rpcError is an error answered with its code.
type rpcError struct {
	code int
	msg  string
}

func (e *rpcError) Error() string { return e.msg }

func paramsErr(msg string) error { return &rpcError{code: codeInvalidParams, msg: msg} }

// codeOf is the JSON-RPC code of err.
func codeOf(err error) int {
	var re *rpcError
	if errors.As(err, &re) {
		return re.code
	}
	return codeInternal
}
