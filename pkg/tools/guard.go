package tools

import (
	"encoding/json"

	"gopi/pkg/sandbox"
)

// permit checks one call against env's Guard before the tool runs: bash
// by its command, the file tools by their path (resolved as the tool
// resolves it; the guard follows its links), other tools by name.
func permit(t Tool, env *Env, name string, args json.RawMessage) error {
	g := env.Guard
	if g == nil {
		return nil
	}
	var a struct {
		Path    string `json:"path"`
		Command string `json:"command"`
	}
	_ = json.Unmarshal(args, &a) // validated against the schema already
	switch t.(type) {
	case *BashTool:
		return g.Permit(name, sandbox.OpCommand, a.Command)
	case *WriteTool, *EditTool:
		return g.Permit(name, sandbox.OpWrite, resolvePath(env, a.Path))
	case *ReadTool:
		return g.Permit(name, sandbox.OpRead, resolvePath(env, a.Path))
	case *LsTool, *GrepTool, *FindTool:
		return g.Permit(name, sandbox.OpRead, resolvePath(env, orDot(a.Path)))
	}
	return g.Permit(name, sandbox.OpNone, "")
}

// explainRefusal adds the guard's note to the result of a sandboxed
// command that failed with a refusal the sandbox may have caused: the
// model learns which flag would allow it instead of retrying blindly.
// A command that succeeded was not refused, whatever it printed.
func explainRefusal(env *Env, tool, command string, failed bool, res Result) Result {
	if env.Guard == nil || len(res.Content) == 0 {
		return res
	}
	text := res.Content[len(res.Content)-1].Text
	if note := env.Guard.Explain(tool, command, env.Cwd, text, failed); note != "" {
		res.Content[len(res.Content)-1].Text = text + "\n\n" + note
		res.IsError = true
	}
	return res
}
