package tools

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"gopi/pkg/ai"
)

func commandTool(t *testing.T, spec CommandSpec) *CommandTool {
	t.Helper()
	if spec.Name == "" {
		spec.Name = "ticket"
	}
	ct, err := NewCommand(spec, Options{})
	if err != nil {
		t.Fatalf("NewCommand: %v", err)
	}
	return ct
}

// The model sees the tool as declared; its arguments reach the command on
// stdin and in $GOPI_TOOL_ARGS, and a JSON answer is the result.
func TestCommandToolJSONAnswer(t *testing.T) {
	env := testEnv(t)
	params := json.RawMessage(`{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"]}`)
	ct := commandTool(t, CommandSpec{Description: "Look up a ticket", Parameters: params,
		Command: `cat > stdin.json; printf '%s' "$GOPI_TOOL_ARGS" > env.json; printf '%s' "$GOPI_TOOL_NAME" > name.txt; ` +
			`echo '{"content": "ticket 7: flaky test", "isError": false}'`})
	spec := ct.Spec()
	if spec.Name != "ticket" || spec.Description != "Look up a ticket" || string(spec.Parameters) != string(params) {
		t.Errorf("spec %+v", spec)
	}
	res := runTool(t, env, ct, map[string]any{"id": 7})
	if res.IsError || text(res) != "ticket 7: flaky test" {
		t.Fatalf("result %+v", res)
	}
	for file, want := range map[string]string{"stdin.json": `{"id":7}`, "env.json": `{"id":7}`, "name.txt": "ticket"} {
		got, err := os.ReadFile(filepath.Join(env.Cwd, file))
		if err != nil || string(got) != want {
			t.Errorf("%s = %q, %v; want %q", file, got, err, want)
		}
	}
}

// The answer's forms: text, text blocks and images, an error the command
// reports itself, and plain output that is not such an object.
func TestCommandToolAnswers(t *testing.T) {
	tests := []struct {
		name    string
		out     string
		content []ai.Content
		isError bool
	}{
		{"plain text", `hello`, []ai.Content{ai.TextContent("hello\n")}, false},
		{"text content", `{"content":"done"}`, []ai.Content{ai.TextContent("done")}, false},
		{"reported error", `{"content":"no such ticket","isError":true}`, []ai.Content{ai.TextContent("no such ticket")}, true},
		{"blocks", `{"content":[{"type":"text","text":"a chart"},{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}]}`,
			[]ai.Content{ai.TextContent("a chart"), {Type: ai.TypeImage, Data: "iVBORw0KGgo=", MimeType: "image/png"}}, false},
		{"other JSON is text", `{"id":7,"title":"x"}`, []ai.Content{ai.TextContent("{\"id\":7,\"title\":\"x\"}\n")}, false},
		{"unknown block type is text", `{"content":[{"type":"toolCall","id":"x"}]}`, []ai.Content{ai.TextContent("{\"content\":[{\"type\":\"toolCall\",\"id\":\"x\"}]}\n")}, false},
		{"no output", ``, []ai.Content{ai.TextContent("(no output)")}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := testEnv(t)
			if err := os.WriteFile(filepath.Join(env.Cwd, "out"), []byte(tt.out), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := `cat out; if [ -s out ]; then echo; fi`
			if strings.HasPrefix(tt.out, "{\"content\"") && tt.name != "unknown block type is text" {
				cmd = `cat out`
			}
			res := runTool(t, env, commandTool(t, CommandSpec{Command: cmd}), map[string]any{})
			if res.IsError != tt.isError {
				t.Errorf("isError %v, want %v (%q)", res.IsError, tt.isError, text(res))
			}
			got, _ := json.Marshal(res.Content)
			want, _ := json.Marshal(tt.content)
			if string(got) != string(want) {
				t.Errorf("content %s\nwant    %s", got, want)
			}
		})
	}
}

// A failing command is an error result with what it wrote on both
// streams and its exit code; on success stderr is not the model's.
func TestCommandToolFailure(t *testing.T) {
	env := testEnv(t)
	res := runTool(t, env, commandTool(t, CommandSpec{Command: `echo partial; echo 'ticket service down' >&2; exit 3`}), map[string]any{})
	if !res.IsError {
		t.Fatalf("not an error: %q", text(res))
	}
	if want := "partial\n\n\nstderr:\nticket service down\n\n\nCommand exited with code 3"; text(res) != want {
		t.Errorf("text %q, want %q", text(res), want)
	}
	res = runTool(t, env, commandTool(t, CommandSpec{Command: `echo noise >&2; echo ok`}), map[string]any{})
	if res.IsError || text(res) != "ok\n" {
		t.Errorf("success with stderr: %+v", res)
	}
	// A command killed by a signal says which.
	res = runTool(t, env, commandTool(t, CommandSpec{Command: `echo dying; kill -KILL $$`}), map[string]any{})
	if want := "dying\n\n\nCommand was killed by signal killed"; !res.IsError || text(res) != want {
		t.Errorf("killed: %q, want %q", text(res), want)
	}
	// A JSON answer from a failing command is not trusted as a result.
	res = runTool(t, env, commandTool(t, CommandSpec{Command: `echo '{"content":"fine"}'; exit 1`}), map[string]any{})
	if !res.IsError || !strings.Contains(text(res), "Command exited with code 1") {
		t.Errorf("JSON then exit 1: %+v", res)
	}
}

// Arguments that do not match the declared schema never reach the
// command: the model gets the validation error.
func TestCommandToolArgumentsValidated(t *testing.T) {
	env := testEnv(t)
	ct := commandTool(t, CommandSpec{Parameters: json.RawMessage(`{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"]}`),
		Command: `touch ran`})
	res := runTool(t, env, ct, map[string]any{"id": "seven"})
	if !res.IsError || !strings.Contains(text(res), "id") {
		t.Errorf("result %+v", res)
	}
	if _, err := os.Stat(filepath.Join(env.Cwd, "ran")); !os.IsNotExist(err) {
		t.Errorf("the command ran on invalid arguments (%v)", err)
	}
}

// A command that floods its output is cut as bash is, the rest in a spill
// file, and a flood is never parsed as a JSON answer.
func TestCommandToolFloodBounded(t *testing.T) {
	env := testEnv(t)
	res := runTool(t, env, commandTool(t, CommandSpec{Command: `seq 1 100000`}), map[string]any{})
	if res.IsError {
		t.Fatalf("error: %q", clip(text(res)))
	}
	out := text(res)
	if len(out) > DefaultMaxBytes+500 || !strings.Contains(out, "100000\n") || strings.Contains(out, "\n1\n") {
		t.Errorf("output not the bounded tail: %d bytes\n%s", len(out), clip(out))
	}
	d, ok := res.Details.(*BashDetails)
	if !ok || d.Truncation == nil || d.FullOutputPath == "" {
		t.Fatalf("details %#v", res.Details)
	}
	full, err := os.ReadFile(d.FullOutputPath)
	if err != nil || !strings.HasPrefix(string(full), "1\n2\n") {
		t.Errorf("spill file: %v, starts %q", err, clip(string(full[:min(len(full), 20)])))
	}
}

// Keys never reach the command's environment, and what it prints of a
// known secret is scrubbed.
func TestCommandToolSecrets(t *testing.T) {
	env := testEnv(t)
	env.Environ = append(env.Environ, "OPENAI_API_KEY=sk-proj-env-secret-0123456789")
	env.Secrets = NewSecrets(Secret{Name: "ANTHROPIC_API_KEY", Value: "sk-ant-api03-known-secret-0123456789"})
	res := runTool(t, env, commandTool(t, CommandSpec{Command: `echo "key=${OPENAI_API_KEY:-none}"; echo sk-ant-api03-known-secret-0123456789`}), map[string]any{})
	if out := text(res); strings.Contains(out, "secret") || !strings.Contains(out, "key=none") {
		t.Errorf("output %q", out)
	}
}

// Arguments over the environment's limit still reach stdin.
func TestCommandToolLargeArguments(t *testing.T) {
	env := testEnv(t)
	big := strings.Repeat("x", 300<<10)
	res := runTool(t, env, commandTool(t, CommandSpec{Command: `wc -c; echo "env:${GOPI_TOOL_ARGS:-unset}"`}), map[string]any{"text": big})
	if res.IsError || !strings.Contains(text(res), "307211") || !strings.Contains(text(res), "env:unset") {
		t.Errorf("result %q", clip(text(res)))
	}
}

// A declaration that cannot work is refused with what to change.
func TestNewCommandRefuses(t *testing.T) {
	tests := []struct {
		spec CommandSpec
		want string
	}{
		{CommandSpec{Name: "my tool", Command: "true"}, "use 1 to 64 letters"},
		{CommandSpec{Name: "", Command: "true"}, "use 1 to 64 letters"},
		{CommandSpec{Name: "bash", Command: "true"}, "built-in tool's"},
		{CommandSpec{Name: "t", Command: "  "}, "give the command"},
		{CommandSpec{Name: "t", Command: "true", Timeout: -time.Second}, "timeout"},
		{CommandSpec{Name: "t", Command: "true", Timeout: 25 * time.Hour}, "timeout"},
		{CommandSpec{Name: "t", Command: "true", Parameters: json.RawMessage(`{"type":"string"}`)}, `of type "object"`},
		{CommandSpec{Name: "t", Command: "true", Parameters: json.RawMessage(`{"type":"object","properties":{"a":{"type":7}}}`)}, "parameters schema"},
	}
	for _, tt := range tests {
		_, err := NewCommand(tt.spec, Options{})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("NewCommand(%+v) = %v, want an error with %q", tt.spec, err, tt.want)
		}
	}
}

// A custom tool's name is accepted exactly when it matches
// ^[A-Za-z0-9_-]{1,64}$: the boundaries of each class and of the length.
func TestNewCommandNameRule(t *testing.T) {
	rule := regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)
	names := []string{"a", "Z", "0", "9", "_", "-", "my_tool-2", strings.Repeat("x", 64), strings.Repeat("x", 65),
		"", "a b", "a\n", "\na", "a.b", "é", "a/b", "@", "[", "`", "{", ":", "/", "a\x00"}
	for _, name := range names {
		_, err := NewCommand(CommandSpec{Name: name, Command: "true"}, Options{})
		refused := err != nil && strings.Contains(err.Error(), "use 1 to 64 letters")
		if refused == rule.MatchString(name) {
			t.Errorf("name %q: refused %v, the rule matches %v (err %v)", name, refused, rule.MatchString(name), err)
		}
	}
}

// Output that is not exactly one answer object is plain text: no
// content, unknown fields, an empty block list, a second value after the
// object, invalid UTF-8 (shown with a notice).
func TestCommandToolNotAnAnswer(t *testing.T) {
	tests := []struct{ name, out, want string }{
		{"no content", `{"isError":true}`, "{\"isError\":true}\n"},
		{"unknown field", `{"content":"x","extra":1}`, "{\"content\":\"x\",\"extra\":1}\n"},
		{"empty blocks", `{"content":[]}`, "{\"content\":[]}\n"},
		{"content neither text nor blocks", `{"content":7}`, "{\"content\":7}\n"},
		{"two objects", `{"content":"a"} {"content":"b"}`, "{\"content\":\"a\"} {\"content\":\"b\"}\n"},
		{"invalid UTF-8", "{\"content\":\"\xff\"}", "{\"content\":\"\uFFFD\"}\n\n\n[Output was not valid UTF-8; invalid bytes are shown as U+FFFD]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := testEnv(t)
			if err := os.WriteFile(filepath.Join(env.Cwd, "out"), []byte(tt.out+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			res := runTool(t, env, commandTool(t, CommandSpec{Command: `cat out`}), map[string]any{})
			if res.IsError || text(res) != tt.want {
				t.Errorf("got %q (error %v), want %q", text(res), res.IsError, tt.want)
			}
		})
	}
}

// The declared environment reaches the command; arguments of exactly
// 100 KiB are also in $GOPI_TOOL_ARGS, one byte more only on stdin; a
// timeout of exactly the maximum is accepted.
func TestCommandToolEnvironment(t *testing.T) {
	env := testEnv(t)
	ct := commandTool(t, CommandSpec{Command: `echo "$TICKET_URL"; printf '%s' "${GOPI_TOOL_ARGS:-unset}" | wc -c; wc -c`,
		Env: []string{"TICKET_URL=https://tickets.example"}, Timeout: MaxBashTimeout})
	for _, tc := range []struct {
		n    int // bytes of the arguments' JSON
		want string
	}{
		{100 << 10, "https://tickets.example\n102400\n102400\n"},
		{100<<10 + 1, "https://tickets.example\n5\n102401\n"},
	} {
		res := runTool(t, env, ct, map[string]any{"t": strings.Repeat("x", tc.n-len(`{"t":""}`))})
		if got := strings.ReplaceAll(text(res), " ", ""); res.IsError || got != tc.want {
			t.Errorf("%d bytes: got %q, want %q", tc.n, got, tc.want)
		}
	}
}

// On failure, a stderr of only blank lines is left out, and a long one is
// cut to its tail with its own notice.
func TestCommandToolFailureStderr(t *testing.T) {
	env := testEnv(t)
	res := runTool(t, env, commandTool(t, CommandSpec{Command: `echo out; printf '\n \n' >&2; exit 2`}), map[string]any{})
	if want := "out\n\n\nCommand exited with code 2"; !res.IsError || text(res) != want {
		t.Errorf("blank stderr: %q, want %q", text(res), want)
	}
	res = runTool(t, env, commandTool(t, CommandSpec{Command: `seq 1 3000 >&2; exit 2`}), map[string]any{})
	got := text(res)
	if !res.IsError || !strings.HasPrefix(got, "stderr:\n1001\n1002\n") || !strings.Contains(got, "\n3000\n\n[Showing lines 1001-3000 of 3000. Full output: ") ||
		!strings.HasSuffix(got, "]\n\nCommand exited with code 2") {
		t.Errorf("long stderr: %q", clip(got))
	}
}
