package mcp

import (
	"fmt"
	"strings"
)

// State of a configured server.
type State string

// States a server is in.
const (
	StateStarted  State = "started"
	StateFailed   State = "failed"   // did not start
	StateDied     State = "died"     // started, then ended or lost its connection
	StateDisabled State = "disabled" // configured off
)

// Status is one server as it stands.
type Status struct {
	Server Server
	State  State
	// Reason says why a server failed or died.
	Reason string
	// Stderr is the tail of a stdio server's stderr.
	Stderr string
	// Tools are the tools it offers, selected or not, in its order.
	Tools []ToolInfo
}

// ToolInfo describes one tool of a server.
type ToolInfo struct {
	Name        string `json:"name"`   // as the model sees it: mcp__<server>__<tool>
	Remote      string `json:"remote"` // as the server calls it
	Description string `json:"description,omitempty"`
	Selected    bool   `json:"offered"` // offered to the model (Options.Select, and its name its own)
	// Note says why a tool is not offered although selected.
	Note   string `json:"note,omitempty"`
	server string
}

// Summary says in one line that a server failed or died, and why.
func (s Status) Summary() string {
	what := "did not start"
	if s.State == StateDied {
		what = "stopped"
	}
	return fmt.Sprintf("MCP server %s %s: %s", s.Server.Name, what, s.Reason)
}

// StderrBlock is the tail of the server's stderr, indented on lines of
// its own after a newline; "" when it wrote nothing.
func (s Status) StderrBlock() string {
	if s.Stderr == "" {
		return ""
	}
	return "\n  its stderr:\n    " + strings.ReplaceAll(s.Stderr, "\n", "\n    ")
}

// Message is Summary and StderrBlock.
func (s Status) Message() string { return s.Summary() + s.StderrBlock() }
