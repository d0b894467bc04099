// Package tools holds the tool registry and the built-in tools (read, write,
// edit, bash, ls, grep, find). The registry validates a call's arguments
// against the tool's JSON schema before the tool runs, turns an unknown
// tool, invalid arguments or a panic into an error result the model can
// read, and resolves every path against the registry's working directory,
// never the process's. read, write and edit work on regular files only: a
// named pipe, socket or device is refused before it is opened, so no call
// hangs on one, and grep skips them. write and edit replace a file
// atomically (a crash or a full disk leaves the old bytes or the new),
// keeping its mode and owner and changing the file a symbolic link points
// to, not the link.
package tools

import (
	"context"
	"encoding/json"

	"gopi/pkg/ai"
	"gopi/pkg/sandbox"
)

// Tool is one capability offered to the model.
type Tool interface {
	// Spec describes the tool; Parameters is a JSON schema of type object.
	Spec() ai.ToolSpec
	// Run executes one validated call. A failure the model can fix is a
	// Result with IsError; a returned error also becomes an error result
	// (its text is shown to the model).
	Run(ctx context.Context, call Call) (Result, error)
}

// Call is one invocation of a tool.
type Call struct {
	ID   string
	Name string
	Args json.RawMessage // validated against the tool's schema
	Env  *Env
	// Update reports partial output while the tool runs; never nil.
	Update func(Result)
}

// Env is what tools see of the world: injected, never read from the process.
type Env struct {
	// Cwd is the absolute working directory every relative path resolves against.
	Cwd string
	// Environ is the environment for commands (bash); credentials already removed.
	Environ []string
	// TempDir is where spilled output goes, made (0700) when the first
	// spill needs it; "" means os.TempDir().
	TempDir string
	// Secrets are scrubbed from every tool's output: bash scrubs its
	// stream (and so its spill file), the loop every result and partial
	// result. Nil scrubs nothing.
	Secrets *Secrets
	// Groups keeps the process groups bash calls left running in the
	// background, for the caller to Kill when it is done; nil keeps none
	// (they are left running).
	Groups *Groups
	// Changes records the files the tools changed; nil records nothing.
	Changes *Changes
	// Guard is the sandbox and the permission rules: every call is
	// checked against it, and commands run through its helper. Nil
	// allows everything.
	Guard *sandbox.Guard
	// Model describes the model in use when it is asked, which a switch
	// during a run changes (read says when an image it returns is one the
	// model does not take); nil means the model is not known.
	Model func() ai.Info
}

// Result is what a tool returns.
type Result struct {
	Content []ai.Content
	Details any // JSON-serialisable; shown to users, not to the model
	IsError bool
}

// TextResult returns a result with one text block.
func TextResult(text string) Result {
	return Result{Content: []ai.Content{ai.TextContent(text)}}
}

// ErrorResult returns an error result with one text block.
func ErrorResult(text string) Result {
	return Result{Content: []ai.Content{ai.TextContent(text)}, IsError: true}
}
