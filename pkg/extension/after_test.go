package extension

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestCommandAfterHooks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, script string
		wantText     string
		wantError    bool
	}{
		{"observe", `cat > /dev/null`, `ran bash {"command":"ls"}`, false},
		{"replace with text", `echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedToolOutput":"[redacted]"}}'`, "[redacted]", false},
		{"replace as error", `echo '{"hookSpecificOutput":{"updatedToolOutput":{"content":[{"type":"text","text":"bad"}],"isError":true}}}'`, "bad", true},
		{"MCP name", `echo '{"hookSpecificOutput":{"updatedMCPToolOutput":"mcp style"}}'`, "mcp style", false},
		{"additional context", `echo '{"hookSpecificOutput":{"additionalContext":"lint: 2 warnings"}}'`, "ran bash {\"command\":\"ls\"}\nlint: 2 warnings", false},
		{"block withholds", `echo '{"decision":"block","reason":"leaks a token"}'`, "withheld its result: leaks a token", true},
		{"exit 2 withholds", `echo "secret in output" >&2; exit 2`, "withheld its result: secret in output", true},
		{"exit 1 withholds", `exit 1`, "exited with status 1", true},
		{"invalid JSON withholds", `echo '{'`, "invalid JSON", true},
		{"bad block type withholds", `echo '{"hookSpecificOutput":{"updatedToolOutput":[{"type":"toolCall","id":"x","name":"y"}]}}'`, "only text and image", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Not parallel: writing an executable while another test forks
			// can leave its descriptor open in the child, and exec then
			// fails with "text file busy".
			dir := hookDir(t, map[string]string{"after.sh": tt.script})
			h := commandHost(t, HooksConfig{AfterTool: []CommandHook{{Command: "./after.sh"}}}, dir)
			rec := &recorder{}
			res := callTool(h, rec, "bash", `{"command":"ls"}`)
			if len(rec.ran()) != 1 {
				t.Fatalf("the tool ran %d times, want once", len(rec.ran()))
			}
			if !strings.Contains(resultText(res), tt.wantText) || res.IsError != tt.wantError {
				t.Errorf("result %q isError %v, want %q isError %v", resultText(res), res.IsError, tt.wantText, tt.wantError)
			}
		})
	}
}

func TestCommandAfterHookReadsToolResponse(t *testing.T) {
	t.Parallel()
	dir := hookDir(t, map[string]string{"spy.sh": `cat > stdin.json`})
	h := commandHost(t, HooksConfig{AfterTool: []CommandHook{{Command: "./spy.sh"}}}, dir)
	callTool(h, &recorder{}, "bash", `{"command":"ls"}`)
	var in struct {
		Event    string `json:"hook_event_name"`
		Response struct {
			Content []struct{ Type, Text string }
			IsError bool `json:"isError"`
		} `json:"tool_response"`
	}
	if err := json.Unmarshal(readFile(t, dir, "stdin.json"), &in); err != nil {
		t.Fatal(err)
	}
	if in.Event != "PostToolUse" || len(in.Response.Content) != 1 || in.Response.Content[0].Text != `ran bash {"command":"ls"}` {
		t.Errorf("after-hook stdin %+v, want PostToolUse with the tool's response", in)
	}
}

func TestAddCommandHooksRejectsBadConfig(t *testing.T) {
	t.Parallel()
	tests := []struct {
		cfg  HooksConfig
		want string
	}{
		{HooksConfig{BeforeTool: []CommandHook{{Command: "true"}, {Matcher: "("}}}, "hooks.beforeTool[1]: no command"},
		{HooksConfig{AfterTool: []CommandHook{{Matcher: "(", Command: "true"}}}, `test settings: hooks.afterTool[0]: matcher "(" is not a valid regular expression`},
		{HooksConfig{BeforeTool: []CommandHook{{Command: "true", Timeout: -1}}}, "timeout -1 is negative"},
	}
	for _, tt := range tests {
		h := NewHost(Options{})
		err := h.AddCommandHooks(tt.cfg, testEnv(t.TempDir()))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("AddCommandHooks(%+v) = %v, want an error containing %q", tt.cfg, err, tt.want)
		}
		if len(h.before)+len(h.after) != 0 {
			t.Errorf("a rejected config registered hooks")
		}
	}
}

func TestHooksConfigDecodesSettings(t *testing.T) {
	t.Parallel()
	var s struct {
		Hooks HooksConfig `json:"hooks"`
	}
	raw := `{"hooks":{"beforeTool":[{"matcher":"bash","command":"./policy.sh","timeout":30}],"afterTool":[{"command":"./log.sh"}]}}`
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		t.Fatal(err)
	}
	if len(s.Hooks.BeforeTool) != 1 || s.Hooks.BeforeTool[0].Timeout != 30 || s.Hooks.AfterTool[0].Command != "./log.sh" {
		t.Errorf("decoded %+v", s.Hooks)
	}
}
