// Package toolstest is the test kit of the packages that run tools: a tool
// whose behaviour a test supplies, and a registry rooted in a temporary
// folder.
package toolstest

import (
	"context"
	"encoding/json"
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/tools"
)

// Func is a tool whose behaviour a test supplies. Parameters defaults to
// an object schema that accepts anything.
type Func struct {
	Name       string
	Parameters json.RawMessage
	Fn         func(ctx context.Context, call tools.Call) (tools.Result, error)
}

// Spec describes the tool.
func (f Func) Spec() ai.ToolSpec {
	p := f.Parameters
	if p == nil {
		p = json.RawMessage(`{"type":"object"}`)
	}
	return ai.ToolSpec{Name: f.Name, Description: "test tool", Parameters: p}
}

// Run calls Fn.
func (f Func) Run(ctx context.Context, call tools.Call) (tools.Result, error) { return f.Fn(ctx, call) }

// Registry returns a registry of ts working in a temporary folder.
func Registry(t testing.TB, ts ...tools.Tool) *tools.Registry {
	t.Helper()
	r, err := tools.NewRegistry(tools.Env{Cwd: t.TempDir()}, ts...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
