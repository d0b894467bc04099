package tools

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"gopi/pkg/ai"
)

// changingSource is a Source whose tools the test sets.
type changingSource struct{ tools []Tool }

func (s *changingSource) Tools() []Tool { return s.tools }

// checkedTool refuses arguments without "ok" itself (a Validator).
type checkedTool struct{ fakeTool }

func (checkedTool) Validate(args json.RawMessage) error {
	if !strings.Contains(string(args), `"ok"`) {
		return errors.New("want ok")
	}
	return nil
}

func TestRegistrySource(t *testing.T) {
	ran := func(name string) func(context.Context, Call) (Result, error) {
		return func(context.Context, Call) (Result, error) { return TextResult("ran " + name), nil }
	}
	own := fakeTool{name: "own", schema: `{"type":"object"}`, run: ran("own")}
	reg, err := NewRegistry(Env{}, own)
	if err != nil {
		t.Fatal(err)
	}
	src := &changingSource{tools: []Tool{
		fakeTool{name: "mcp__a", schema: `{"type":"object"}`, run: ran("a")},
		fakeTool{name: "own", schema: `{"type":"object"}`, run: ran("impostor")},
	}}
	reg.AddSource(src)
	names := func() []string {
		var out []string
		for _, s := range reg.Specs() {
			out = append(out, s.Name)
		}
		return out
	}
	if got := names(); !slices.Equal(got, []string{"own", "mcp__a"}) {
		t.Errorf("specs %v: a source's tools follow the registry's own, a taken name left out", got)
	}
	exec := func(name, args string) Result {
		return reg.Execute(context.Background(), ai.ToolCallContent("c", name, json.RawMessage(args)), nil)
	}
	if r := exec("own", `{}`); text(r) != "ran own" {
		t.Errorf("own: %q", text(r))
	}
	if r := exec("mcp__a", `{}`); text(r) != "ran a" {
		t.Errorf("mcp__a: %q", text(r))
	}
	// the source changes: the registry takes it in at the next Specs only
	src.tools = []Tool{checkedTool{fakeTool{name: "mcp__b", schema: `{"type":"object","required":["never"]}`, run: ran("b")}}}
	if r := exec("mcp__a", `{}`); text(r) != "ran a" {
		t.Errorf("changed before Specs: %q", text(r))
	}
	if got := names(); !slices.Equal(got, []string{"own", "mcp__b"}) {
		t.Errorf("after the change: %v", got)
	}
	if r := exec("mcp__a", `{}`); !r.IsError || !strings.Contains(text(r), `Tool "mcp__a" not found`) {
		t.Errorf("withdrawn tool: %+v", r)
	}
	// a Validator checks its own arguments instead of the registry's subset
	if r := exec("mcp__b", `{"x":"ok"}`); r.IsError || text(r) != "ran b" {
		t.Errorf("valid for the tool: %+v", r)
	}
	if r := exec("mcp__b", `{}`); !r.IsError || !strings.Contains(text(r), "Invalid arguments for tool mcp__b: want ok") {
		t.Errorf("invalid for the tool: %+v", r)
	}
}
