package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"gopi/pkg/ai"
)

// fakeTool is a tool whose Run is a function.
type fakeTool struct {
	name   string
	schema string
	run    func(ctx context.Context, call Call) (Result, error)
}

func (f fakeTool) Spec() ai.ToolSpec {
	return ai.ToolSpec{Name: f.name, Description: "test tool", Parameters: json.RawMessage(f.schema)}
}

func (f fakeTool) Run(ctx context.Context, call Call) (Result, error) { return f.run(ctx, call) }

const echoSchema = `{"type":"object","properties":{"msg":{"type":"string"}},"required":["msg"]}`

func TestRegistryExecute(t *testing.T) {
	echo := fakeTool{name: "echo", schema: echoSchema, run: func(_ context.Context, c Call) (Result, error) {
		var a struct{ Msg string }
		_ = json.Unmarshal(c.Args, &a)
		c.Update(TextResult("partial " + a.Msg))
		return TextResult(a.Msg + " in " + c.Env.Cwd), nil
	}}
	boom := fakeTool{name: "boom", schema: `{"type":"object"}`, run: func(context.Context, Call) (Result, error) {
		panic("kaboom")
	}}
	fails := fakeTool{name: "fails", schema: `{"type":"object"}`, run: func(context.Context, Call) (Result, error) {
		return Result{}, errors.New("disk on fire")
	}}
	reg, err := NewRegistry(Env{Cwd: "/work"}, echo, boom, fails)
	if err != nil {
		t.Fatal(err)
	}
	long := `{"msg": 5, "pad": "` + strings.Repeat("x", 5000) + `"}`
	// The preview's 500th byte falls inside a "é": the cut moves back to
	// the character's start, so the echo stays valid UTF-8.
	wide := `{"msg": 5, "p": "` + strings.Repeat("x", 480) + strings.Repeat("é", 300) + `"}`
	tests := []struct {
		name, tool, args string
		wantErr          bool
		want             []string
		maxLen           int
	}{
		{name: "ok", tool: "echo", args: `{"msg":"hi"}`, want: []string{"hi in /work"}},
		{name: "unknown tool", tool: "nope", args: `{}`, wantErr: true, want: []string{`Tool "nope" not found`, "boom, echo, fails"}},
		{name: "missing property", tool: "echo", args: `{}`, wantErr: true, want: []string{"Invalid arguments for tool echo", "msg", "Received: {}"}},
		{name: "wrong type bounded preview", tool: "echo", args: long, wantErr: true, want: []string{"Invalid arguments for tool echo", "bytes in all"}, maxLen: 2000},
		{name: "preview cut at a character start", tool: "echo", args: wide, wantErr: true,
			want: []string{`"p": "` + strings.Repeat("x", 480) + "é… (" + fmt.Sprint(len(wide)) + " bytes in all)"}},
		{name: "arguments without one character start", tool: "echo", args: strings.Repeat("\x80", 600), wantErr: true,
			want: []string{"Received: … (600 bytes in all)"}},
		{name: "non-object raw", tool: "echo", args: `{"_raw":"not json at all"}`, wantErr: true, want: []string{"not a JSON object", "not json at all"}},
		{name: "array args", tool: "echo", args: `[1,2]`, wantErr: true, want: []string{"Invalid arguments for tool echo"}},
		{name: "broken json", tool: "echo", args: `{"msg":`, wantErr: true, want: []string{"Invalid arguments for tool echo"}},
		{name: "empty args", tool: "boom", args: ``, wantErr: true, want: []string{"Tool boom crashed: kaboom"}},
		{name: "go error", tool: "fails", args: `{}`, wantErr: true, want: []string{"disk on fire"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			call := ai.Content{Type: ai.TypeToolCall, ID: "1", Name: tc.tool, Arguments: json.RawMessage(tc.args)}
			res := reg.Execute(context.Background(), call, nil)
			if res.IsError != tc.wantErr {
				t.Errorf("IsError = %v, want %v: %s", res.IsError, tc.wantErr, text(res))
			}
			wantContains(t, text(res), tc.want...)
			if tc.maxLen > 0 && len(text(res)) > tc.maxLen {
				t.Errorf("message is %d bytes, want at most %d", len(text(res)), tc.maxLen)
			}
		})
	}
}

func TestRegistryUpdate(t *testing.T) {
	echo := fakeTool{name: "echo", schema: echoSchema, run: func(_ context.Context, c Call) (Result, error) {
		c.Update(TextResult("one"))
		c.Update(TextResult("two"))
		return TextResult("done"), nil
	}}
	reg, err := NewRegistry(Env{}, echo)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	res := reg.Execute(context.Background(), ai.ToolCallContent("1", "echo", json.RawMessage(`{"msg":"x"}`)), func(r Result) {
		got = append(got, text(r))
	})
	if strings.Join(got, ",") != "one,two" || text(res) != "done" {
		t.Fatalf("updates %v, result %q", got, text(res))
	}
}

func TestNewRegistryRejects(t *testing.T) {
	a := fakeTool{name: "a", schema: `{"type":"object"}`}
	bad := fakeTool{name: "bad", schema: `{"type": 5}`}
	if _, err := NewRegistry(Env{}, a, a); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("duplicate: err = %v", err)
	}
	if _, err := NewRegistry(Env{}, bad); err == nil || !strings.Contains(err.Error(), "bad") {
		t.Errorf("bad schema: err = %v", err)
	}
}

func TestBuiltinsSpecs(t *testing.T) {
	tools, err := Builtins(Options{}, AllNames...)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := NewRegistry(Env{}, tools...)
	if err != nil {
		t.Fatalf("schemas must compile: %v", err)
	}
	if got := strings.Join(reg.Names(), ","); got != strings.Join(AllNames, ",") {
		t.Errorf("names %s", got)
	}
	for _, s := range reg.Specs() {
		var sch struct {
			Type       string                     `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(s.Parameters, &sch); err != nil || sch.Type != "object" || s.Description == "" {
			t.Errorf("%s: schema %s, err %v", s.Name, s.Parameters, err)
		}
		for p, raw := range sch.Properties {
			if !strings.Contains(string(raw), `"description"`) {
				t.Errorf("%s.%s has no description", s.Name, p)
			}
		}
	}
	def, _ := Builtins(Options{})
	if len(def) != 4 {
		t.Errorf("default tools: %d", len(def))
	}
	if _, err := New("rm", Options{}); err == nil || !strings.Contains(err.Error(), "choose from") {
		t.Errorf("unknown tool: %v", err)
	}
}

// The descriptions the model reads give the real limits, as pi's do.
func TestDescriptionsGiveTheLimits(t *testing.T) {
	for tool, want := range map[Tool]string{
		NewLs():   "Output is truncated to 500 entries or 50KB (whichever is hit first).",
		NewRead(): "output is truncated to 2000 lines or 50KB (whichever is hit first).",
	} {
		if d := tool.Spec().Description; !strings.Contains(d, want) {
			t.Errorf("%s: description %q lacks %q", tool.Spec().Name, d, want)
		}
	}
}
