package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"gopi/pkg/ai"
)

// CommandSpec declares a tool that runs a command of the user's (settings'
// "customTools"): the model sees it as it sees a built-in tool.
type CommandSpec struct {
	Name        string
	Description string
	// Parameters is the JSON Schema (type object) the arguments are
	// validated against before the command runs; nil takes any object.
	Parameters json.RawMessage
	// Command runs with the shell's -c in the working directory.
	Command string
	// Timeout bounds one call; 0 means DefaultBashTimeout.
	Timeout time.Duration
	// Env adds variables ("NAME=value") to the command's environment.
	Env []string
}

// maxEnvArgs bounds the arguments also given in GOPI_TOOL_ARGS: Linux
// refuses to start a program with one environment string over 128 KiB.
// Longer arguments are on stdin only.
const maxEnvArgs = 100 << 10

// validToolName reports whether name is 1 to 64 letters, digits, _ or -
// (as `^[A-Za-z0-9_-]{1,64}$`; a loop, since compiling that regexp took
// hundreds of allocations at every start of the binary).
func validToolName(name string) bool {
	if len(name) == 0 || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '_', c == '-':
		default:
			return false
		}
	}
	return true
}

// CommandTool runs a user's command for each call. The call's arguments
// (JSON, validated) are the command's stdin and, when under 100 KiB,
// $GOPI_TOOL_ARGS; $GOPI_TOOL_NAME names the tool. Its stdout is the
// result: a JSON object {"content": text or content blocks, "isError":
// bool}, or else plain text. A non-zero exit is an error result with the
// stdout and stderr the command wrote. It runs as bash does: its own
// process group killed on timeout or abort, credentials kept out of its
// environment, output bounded (the rest spilled to a file) and scrubbed
// of secrets.
type CommandTool struct {
	spec     CommandSpec
	shell    string
	maxSpill int
}

// NewCommand checks spec and returns its tool. opts gives the shell and
// the spill bound, as for bash.
func NewCommand(spec CommandSpec, opts Options) (*CommandTool, error) {
	switch {
	case !validToolName(spec.Name):
		return nil, fmt.Errorf("custom tool name %q: use 1 to 64 letters, digits, _ or -", spec.Name)
	case slices.Contains(AllNames, spec.Name):
		return nil, fmt.Errorf("custom tool %q: the name is a built-in tool's; choose another", spec.Name)
	case strings.TrimSpace(spec.Command) == "":
		return nil, fmt.Errorf("custom tool %q: give the command it runs", spec.Name)
	case spec.Timeout < 0 || spec.Timeout > MaxBashTimeout:
		return nil, fmt.Errorf("custom tool %q: timeout %s: give seconds above 0 and at most %s", spec.Name, seconds(spec.Timeout), seconds(MaxBashTimeout))
	}
	if len(spec.Parameters) == 0 {
		spec.Parameters = json.RawMessage(`{"type":"object"}`)
	}
	var top struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(spec.Parameters, &top); err != nil || top.Type != "object" {
		return nil, fmt.Errorf("custom tool %q: parameters must be a JSON Schema of type \"object\"", spec.Name)
	}
	if _, err := compileToolSchema(ai.ToolSpec{Name: spec.Name, Parameters: spec.Parameters}); err != nil {
		return nil, fmt.Errorf("custom tool %q: %w", spec.Name, err)
	}
	if spec.Timeout == 0 {
		spec.Timeout = DefaultBashTimeout
	}
	b := NewBash(opts)
	return &CommandTool{spec: spec, shell: b.shell, maxSpill: b.maxSpill}, nil
}

// Spec describes the tool as its settings declare it.
func (t *CommandTool) Spec() ai.ToolSpec {
	return ai.ToolSpec{Name: t.spec.Name, Description: t.spec.Description, Parameters: t.spec.Parameters}
}

// commandResult is the JSON object a command may answer with.
type commandResult struct {
	Content json.RawMessage `json:"content"`
	IsError bool            `json:"isError"`
}

// Run executes the command once with the call's arguments.
func (t *CommandTool) Run(ctx context.Context, call Call) (Result, error) {
	args := call.Args
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage(`{}`)
	}
	env := append(slices.Clone(t.spec.Env), "GOPI_TOOL_NAME="+t.spec.Name)
	if len(args) <= maxEnvArgs {
		env = append(env, "GOPI_TOOL_ARGS="+string(args))
	}
	out := newOutputSink(call.Env.tempDir(), t.maxSpill)
	errOut := newOutputSink(call.Env.tempDir(), t.maxSpill)
	p := &process{shell: t.shell, env: call.Env, sink: out, update: func() {}, stdin: append([]byte(nil), args...), extraEnv: env, errSink: errOut}
	before := call.Env.Changes.snapshot(ctx, call.Env)
	end := p.run(ctx, t.spec.Command, t.spec.Timeout)
	call.Env.Changes.compare(ctx, call.Env, before)
	return t.result(out, errOut, end), nil
}

// result renders what the command wrote and how it ended.
func (t *CommandTool) result(out, errOut *outputSink, end ending) Result {
	if end.startErr != nil {
		return ErrorResult(fmt.Sprintf("Cannot run the command of tool %s: %v", t.spec.Name, end.startErr))
	}
	text, tr, invalid := out.tail()
	clean := end.code == 0 && end.signal == "" && !end.timedOut && !end.aborted
	if clean && !tr.Truncated && !invalid {
		if res, ok := parseCommandResult(text); ok {
			return res
		}
	}
	var parts []string
	if strings.TrimSpace(text) != "" {
		parts = append(parts, text)
	}
	if tr.Truncated {
		parts = append(parts, out.notice(tr))
	}
	if !clean {
		if etext, etr, _ := errOut.tail(); strings.TrimSpace(etext) != "" {
			parts = append(parts, "stderr:\n"+etext)
			if etr.Truncated {
				parts = append(parts, errOut.notice(etr))
			}
		}
	}
	if invalid {
		parts = append(parts, "[Output was not valid UTF-8; invalid bytes are shown as U+FFFD]")
	}
	switch {
	case end.aborted:
		parts = append(parts, "Command aborted")
	case end.timedOut:
		parts = append(parts, fmt.Sprintf("Command timed out after %s seconds", seconds(t.spec.Timeout)))
	case end.signal != "":
		parts = append(parts, "Command was killed by signal "+end.signal)
	case end.code != 0:
		parts = append(parts, fmt.Sprintf("Command exited with code %d", end.code))
	}
	if len(parts) == 0 {
		parts = append(parts, "(no output)")
	}
	res := Result{Content: textContent(strings.Join(parts, "\n\n")), IsError: !clean}
	if d := bashDetails(out, tr); d != nil {
		res.Details = d
	}
	return res
}

// parseCommandResult reads {"content": "text" | [blocks], "isError": b};
// ok is false for any other output, which is then plain text.
func parseCommandResult(text string) (Result, bool) {
	trimmed := strings.TrimSpace(text)
	if !strings.HasPrefix(trimmed, "{") {
		return Result{}, false
	}
	var cr commandResult
	dec := json.NewDecoder(strings.NewReader(trimmed))
	dec.DisallowUnknownFields()
	if dec.Decode(&cr) != nil || len(cr.Content) == 0 || dec.More() {
		return Result{}, false
	}
	var s string
	if json.Unmarshal(cr.Content, &s) == nil {
		return Result{Content: textContent(s), IsError: cr.IsError}, true
	}
	var blocks []ai.Content
	if json.Unmarshal(cr.Content, &blocks) != nil || len(blocks) == 0 {
		return Result{}, false
	}
	for _, b := range blocks {
		if b.Type != ai.TypeText && b.Type != ai.TypeImage {
			return Result{}, false
		}
	}
	return Result{Content: blocks, IsError: cr.IsError}, true
}
