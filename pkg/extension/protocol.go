package extension

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"gopi/pkg/ai"
	"gopi/pkg/tools"
)

// Claude Code's names of the hook events gopi sends.
const (
	eventPre  = "PreToolUse"
	eventPost = "PostToolUse"
)

// hookInput is the JSON object a command hook reads on stdin.
type hookInput struct {
	SessionID     string          `json:"session_id"`
	Cwd           string          `json:"cwd"`
	HookEventName string          `json:"hook_event_name"`
	ToolName      string          `json:"tool_name"`
	ToolInput     json.RawMessage `json:"tool_input"`
	ToolUseID     string          `json:"tool_use_id"`
	ToolResponse  *toolResponse   `json:"tool_response,omitempty"`
}

// toolResponse is a tool's result as after-hooks read it.
type toolResponse struct {
	Content []ai.Content `json:"content"`
	Details any          `json:"details,omitempty"`
	IsError bool         `json:"isError"`
}

func (c *commandHook) input(event string, call Call, res *tools.Result) []byte {
	in := hookInput{Cwd: c.env.Cwd, HookEventName: event, ToolName: call.Name, ToolInput: call.Args, ToolUseID: call.ID}
	if c.env.SessionID != nil {
		in.SessionID = c.env.SessionID()
	}
	if res != nil {
		in.ToolResponse = &toolResponse{Content: res.Content, Details: res.Details, IsError: res.IsError}
		if in.ToolResponse.Content == nil {
			in.ToolResponse.Content = []ai.Content{}
		}
	}
	b, err := json.Marshal(in)
	if err != nil && res != nil {
		// Details that do not serialise are left out rather than failing the hook.
		in.ToolResponse.Details = nil
		b, err = json.Marshal(in)
	}
	if err != nil {
		b = []byte("{}")
	}
	return append(b, '\n')
}

// hookOutput is the subset of Claude Code's hook JSON output gopi reads.
type hookOutput struct {
	Continue           *bool           `json:"continue"`
	StopReason         string          `json:"stopReason"`
	Decision           string          `json:"decision"`
	Reason             string          `json:"reason"`
	HookSpecificOutput *specificOutput `json:"hookSpecificOutput"`
}

type specificOutput struct {
	PermissionDecision       string          `json:"permissionDecision"`
	PermissionDecisionReason string          `json:"permissionDecisionReason"`
	UpdatedInput             json.RawMessage `json:"updatedInput"`
	AdditionalContext        string          `json:"additionalContext"`
	// UpdatedToolOutput replaces an after-hook's tool result (gopi's
	// name); UpdatedMCPToolOutput is Claude Code's name for MCP tools.
	UpdatedToolOutput    json.RawMessage `json:"updatedToolOutput"`
	UpdatedMCPToolOutput json.RawMessage `json:"updatedMCPToolOutput"`
}

// failure says why a run cannot be trusted (fail closed), or "".
func (r *runResult) failure() string {
	switch {
	case r.aborted:
		return "the run was cancelled before the hook finished"
	case r.timedOut:
		return fmt.Sprintf("the hook did not finish within %v and was killed; raise its \"timeout\" (seconds) if it needs longer", r.timeout)
	case r.startErr != nil:
		return fmt.Sprintf("the hook could not be run (%v); check the command and the shell", r.startErr)
	case r.signal != "":
		return fmt.Sprintf("the hook was killed by signal %s%s", r.signal, r.stderrNote())
	case r.exitCode != 0 && r.exitCode != 2:
		return fmt.Sprintf("the hook exited with status %d (0 allows, 2 denies)%s", r.exitCode, r.stderrNote())
	case r.stdout.overflow:
		return fmt.Sprintf("the hook printed more than %d bytes on stdout", maxHookOutput)
	}
	return ""
}

func (r *runResult) stderrNote() string {
	if s := strings.TrimSpace(r.stderr.String()); s != "" {
		return "; its stderr: " + preview(s)
	}
	return ""
}

// denyReason is the reason of an exit 2: the hook's stderr.
func (r *runResult) denyReason() string {
	if s := strings.TrimSpace(r.stderr.String()); s != "" {
		return preview(s)
	}
	return "the hook exited with status 2 without a reason on stderr"
}

// parseOutput reads stdout: nothing is no output; anything else must be
// one JSON object.
func (r *runResult) parseOutput() (*hookOutput, error) {
	out := bytes.TrimSpace(r.stdout.buf.Bytes())
	if len(out) == 0 {
		return nil, nil
	}
	var o hookOutput
	if out[0] != '{' {
		return nil, fmt.Errorf("the hook printed something other than a JSON object on stdout: %s", preview(string(out)))
	}
	if err := json.Unmarshal(out, &o); err != nil {
		return nil, fmt.Errorf("the hook printed invalid JSON on stdout (%v): %s", err, preview(string(out)))
	}
	if o.HookSpecificOutput == nil {
		o.HookSpecificOutput = &specificOutput{}
	}
	return &o, nil
}

const failClosed = "; a failing hook denies the call"

// preDecision maps a before-hook run to a Decision.
func preDecision(r *runResult) Decision {
	if f := r.failure(); f != "" {
		return Deny(f + failClosed)
	}
	if r.exitCode == 2 {
		return Deny(r.denyReason())
	}
	o, err := r.parseOutput()
	if err != nil {
		return Deny(err.Error() + failClosed)
	}
	if o == nil {
		return Allow()
	}
	return o.preDecision()
}

func (o *hookOutput) preDecision() Decision {
	hs := o.HookSpecificOutput
	if o.Continue != nil && !*o.Continue {
		return Deny(firstOf(o.StopReason, o.Reason, "the hook asked to stop (continue: false)"))
	}
	reason := firstOf(hs.PermissionDecisionReason, o.Reason, "no reason given")
	switch strings.ToLower(hs.PermissionDecision) {
	case "deny":
		return Deny(reason)
	case "ask":
		return Deny("the hook asks for the user's confirmation, which a gopi run cannot ask for: " + reason)
	case "", "allow", "defer":
	default:
		return Deny(fmt.Sprintf("the hook answered permissionDecision %q; only allow, deny, ask and defer are understood%s", hs.PermissionDecision, failClosed))
	}
	switch strings.ToLower(o.Decision) {
	case "block", "deny":
		return Deny(firstOf(o.Reason, "no reason given"))
	case "", "approve", "allow":
	default:
		return Deny(fmt.Sprintf("the hook answered decision %q; only approve and block are understood%s", o.Decision, failClosed))
	}
	if hs.UpdatedInput != nil && string(hs.UpdatedInput) != "null" {
		return ReplaceArgs(hs.UpdatedInput)
	}
	return Allow()
}

func firstOf(s ...string) string {
	for _, v := range s {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}
