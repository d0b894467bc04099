package extension

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gopi/pkg/ai"
	"gopi/pkg/tools"
)

// hookDir is a working directory holding the given executable scripts.
func hookDir(t *testing.T, scripts map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range scripts {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func testEnv(dir string) CommandEnv {
	return CommandEnv{
		Cwd: dir,
		Environ: []string{
			"PATH=/usr/bin:/bin", "KEEP=1", "ANTHROPIC_API_KEY=sk-ant-secret", "my_service_api_key=secret2",
			"ANTHROPIC_AUTH_TOKEN=secret3", "GOPI_PROJECT_DIR=/elsewhere",
		},
		SessionID: func() string { return "sess-42" },
		Source:    "test settings",
	}
}

func commandHost(t *testing.T, cfg HooksConfig, dir string) *Host {
	t.Helper()
	h := NewHost(Options{})
	if err := h.AddCommandHooks(cfg, testEnv(dir)); err != nil {
		t.Fatalf("AddCommandHooks: %v", err)
	}
	return h
}

func callTool(h *Host, next *recorder, tool, args string) tools.Result {
	return h.Wrap(next).Execute(context.Background(), ai.ToolCallContent("toolu_1", tool, json.RawMessage(args)), nil)
}

const denyRm = `input=$(cat)
case "$input" in
  *'"command":"rm '*) echo "rm commands are not allowed; use trash instead" >&2; exit 2 ;;
esac
exit 0
`

func TestCommandHookDeniesRm(t *testing.T) {
	dir := hookDir(t, map[string]string{"policy.sh": denyRm})
	h := commandHost(t, HooksConfig{BeforeTool: []CommandHook{{Matcher: "bash", Command: "./policy.sh"}}}, dir)
	rec := &recorder{}
	res := callTool(h, rec, "bash", `{"command":"rm -rf build"}`)
	if !res.IsError || !strings.Contains(resultText(res), "rm commands are not allowed; use trash instead") {
		t.Errorf("rm call: %q, want denied with the hook's stderr", resultText(res))
	}
	res = callTool(h, rec, "bash", `{"command":"ls"}`)
	if res.IsError {
		t.Errorf("ls call denied: %s", resultText(res))
	}
	if got := rec.ran(); len(got) != 1 || got[0] != `{"command":"ls"}` {
		t.Errorf("tool ran %v, want only the ls call", got)
	}
}

func TestCommandHookOutputs(t *testing.T) {
	tests := []struct {
		name, script string
		wantDeny     string // "" means allowed
		wantArgs     string // the arguments the tool ran with
	}{
		{"json deny", `cat >/dev/null; echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"policy says no"}}'`, "policy says no", ""},
		{"legacy block", `cat >/dev/null; echo '{"decision":"block","reason":"legacy no"}'`, "legacy no", ""},
		{"ask cannot be asked", `echo '{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"sure?"}}'`, "confirmation", ""},
		{"continue false", `echo '{"continue":false,"stopReason":"stop everything"}'`, "stop everything", ""},
		{"rewrite", `cat >/dev/null; echo '{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"command":"echo safe"}}}'`, "", `{"command":"echo safe"}`},
		{"allow silently", `exit 0`, "", `{"command":"ls"}`},
		{"allow with JSON", `echo '{"decision":"approve","suppressOutput":true}'`, "", `{"command":"ls"}`},
		{"exit 1 fails closed", `echo oops >&2; exit 1`, "exited with status 1 (0 allows, 2 denies); its stderr: oops; a failing hook denies", ""},
		{"invalid JSON fails closed", `echo 'not json'`, "something other than a JSON object", ""},
		{"truncated JSON fails closed", `echo '{"decision":'`, "invalid JSON", ""},
		{"wrong field type fails closed", `echo '{"decision":5}'`, "invalid JSON", ""},
		{"unknown decision fails closed", `echo '{"hookSpecificOutput":{"permissionDecision":"maybe"}}'`, `permissionDecision "maybe"`, ""},
		{"rewrite to non-object fails closed", `echo '{"hookSpecificOutput":{"updatedInput":"rm -rf /"}}'`, "not a JSON object", ""},
		{"exit 2 without reason", `exit 2`, "without a reason", ""},
		{"script killed", `kill -9 $$`, "exited with status 137", ""},
		{"missing program", `./no-such-hook.sh`, "exited with status 127", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Not parallel: writing an executable while another test forks
			// can leave its descriptor open in the child, and exec then
			// fails with "text file busy".
			dir := hookDir(t, map[string]string{"hook.sh": tt.script})
			h := commandHost(t, HooksConfig{BeforeTool: []CommandHook{{Command: "./hook.sh"}}}, dir)
			rec := &recorder{}
			res := callTool(h, rec, "bash", `{"command":"ls"}`)
			if tt.wantDeny != "" {
				if !res.IsError || !strings.Contains(resultText(res), tt.wantDeny) || len(rec.ran()) != 0 {
					t.Errorf("result %q (ran %v), want denied with %q", resultText(res), rec.ran(), tt.wantDeny)
				}
				return
			}
			if got := rec.ran(); res.IsError || len(got) != 1 || got[0] != tt.wantArgs {
				t.Errorf("result %q, ran %v; want it to run with %s", resultText(res), got, tt.wantArgs)
			}
		})
	}
}

// A hanging hook is killed with its whole process group at its timeout,
// also when a child it started keeps stdout open.
func TestCommandHookTimeoutDeniesInBoundedTime(t *testing.T) {
	dir := hookDir(t, map[string]string{"hang.sh": "sleep 30 &\nsleep 30\n"})
	h := commandHost(t, HooksConfig{BeforeTool: []CommandHook{{Command: "./hang.sh", Timeout: 0.3}}}, dir)
	rec := &recorder{}
	start := time.Now()
	res := callTool(h, rec, "bash", `{"command":"ls"}`)
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("hanging hook took %v to deny", el)
	}
	if !res.IsError || !strings.Contains(resultText(res), "did not finish within 300ms") || len(rec.ran()) != 0 {
		t.Errorf("result %q, want a timeout denial", resultText(res))
	}
}

func TestCommandHookCancelledRunDenies(t *testing.T) {
	dir := hookDir(t, map[string]string{"hang.sh": "sleep 30\n"})
	h := commandHost(t, HooksConfig{BeforeTool: []CommandHook{{Command: "./hang.sh"}}}, dir)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	res := h.Wrap(&recorder{}).Execute(ctx, ai.ToolCallContent("t", "bash", json.RawMessage(`{}`)), nil)
	if el := time.Since(start); el > 5*time.Second || !strings.Contains(resultText(res), "cancelled") {
		t.Errorf("after %v: %q, want a prompt denial naming the cancellation", el, resultText(res))
	}
}

func TestCommandHookInputAndEnvironment(t *testing.T) {
	dir := hookDir(t, map[string]string{"spy.sh": `cat > stdin.json; env > env.txt; pwd > pwd.txt`})
	h := commandHost(t, HooksConfig{BeforeTool: []CommandHook{{Command: "./spy.sh"}}}, dir)
	callTool(h, &recorder{}, "bash", `{"command":"ls"}`)

	var in map[string]any
	if err := json.Unmarshal(readFile(t, dir, "stdin.json"), &in); err != nil {
		t.Fatalf("stdin is not JSON: %v", err)
	}
	want := map[string]any{"hook_event_name": "PreToolUse", "tool_name": "bash", "tool_use_id": "toolu_1",
		"cwd": dir, "session_id": "sess-42", "tool_input": map[string]any{"command": "ls"}}
	for k, v := range want {
		if got, _ := json.Marshal(in[k]); string(got) != mustJSON(v) {
			t.Errorf("stdin %s = %s, want %s", k, got, mustJSON(v))
		}
	}
	env := string(readFile(t, dir, "env.txt"))
	for _, secret := range []string{"sk-ant-secret", "secret2", "secret3", "/elsewhere"} {
		if strings.Contains(env, secret) {
			t.Errorf("hook environment holds %q:\n%s", secret, env)
		}
	}
	for _, kept := range []string{"KEEP=1", "GOPI_PROJECT_DIR=" + dir, "CLAUDE_PROJECT_DIR=" + dir} {
		if !strings.Contains(env, kept) {
			t.Errorf("hook environment lacks %s:\n%s", kept, env)
		}
	}
	if pwd := strings.TrimSpace(string(readFile(t, dir, "pwd.txt"))); pwd != dir {
		t.Errorf("hook ran in %s, want %s", pwd, dir)
	}
}

func TestCommandHookKilledBySignal(t *testing.T) {
	h := commandHost(t, HooksConfig{BeforeTool: []CommandHook{{Command: "kill -9 $$"}}}, t.TempDir())
	if res := callTool(h, &recorder{}, "bash", `{}`); !strings.Contains(resultText(res), "killed by signal killed") {
		t.Errorf("result %q, want a denial naming the signal", resultText(res))
	}
}

func TestCommandHookMatcher(t *testing.T) {
	dir := hookDir(t, map[string]string{"no.sh": "echo no >&2; exit 2\n"})
	h := commandHost(t, HooksConfig{BeforeTool: []CommandHook{{Matcher: "edit|write", Command: "./no.sh"}}}, dir)
	for tool, denied := range map[string]bool{"bash": false, "edit": true, "write": true, "write2": false, "rewrite": false} {
		if res := callTool(h, &recorder{}, tool, `{}`); res.IsError != denied {
			t.Errorf("%s: denied %v, want %v (%s)", tool, res.IsError, denied, resultText(res))
		}
	}
}

func readFile(t *testing.T, dir, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatalf("the hook did not write %s: %v", name, err)
	}
	return b
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
