package mcp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"gopi/pkg/mcp"
)

// A tool whose input schema's $ref leads back to itself without reading
// any input made the validator recurse until the stack overflowed at the
// first call: such a tool is not offered, and a warning names it.
func TestCyclicInputSchemaNotOffered(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "gopi-test", Version: "1"}, nil)
	handler := func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) { return text("ran"), nil }
	srv.AddTool(&sdk.Tool{Name: "loop", InputSchema: map[string]any{
		"type": "object", "$ref": "#/$defs/a",
		"$defs": map[string]any{"a": map[string]any{"allOf": []any{map[string]any{"$ref": "#/$defs/a"}}}},
	}}, handler)
	srv.AddTool(&sdk.Tool{Name: "tree", InputSchema: map[string]any{
		"type": "object", "properties": map[string]any{"kids": map[string]any{"type": "array", "items": map[string]any{"$ref": "#"}}},
	}}, handler)
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)

	var rep reports
	m := start(t, mcp.Options{Report: rep.add}, mcp.Server{Name: "s", URL: ts.URL})
	if st := m.Statuses()[0]; st.State != mcp.StateStarted {
		t.Fatalf("%s", st.Message())
	}
	reg := registry(t, m)
	names := specNames(reg)
	if slices.Contains(names, "mcp__s__loop") || !slices.Contains(names, "mcp__s__tree") {
		t.Errorf("offered %v, want mcp__s__tree without mcp__s__loop", names)
	}
	var warned bool
	for _, st := range rep.all() {
		warned = warned || strings.Contains(st.Reason, `tool "loop" is not offered`) && strings.Contains(st.Reason, "$ref")
	}
	if !warned {
		t.Errorf("no warning names the tool: %+v", rep.all())
	}
	if r := call(t, reg, "mcp__s__tree", `{"kids":[{"kids":[]}]}`); r.IsError {
		t.Errorf("tree: %s", resultText(r))
	}
	if r := call(t, reg, "mcp__s__tree", `{"kids":[{"kids":5}]}`); !r.IsError {
		t.Errorf("tree with bad arguments ran: %s", resultText(r))
	}
}

// An MCP text of one line over the byte limit reached the model as
// nothing under a notice claiming "1B shown": the line's head is kept,
// and the notice gives the bytes actually shown.
func TestOneLongLineKeepsItsHead(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "gopi-test", Version: "1"}, nil)
	long := strings.Repeat("x", 60*1024) + "END"
	srv.AddTool(&sdk.Tool{Name: "long", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return text(long), nil
	})
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	m := start(t, mcp.Options{}, mcp.Server{Name: "s", URL: ts.URL})
	r := call(t, registry(t, m), "mcp__s__long", `{}`)
	got := resultText(r)
	head, notice, _ := strings.Cut(got, "\n[Output truncated: ")
	if len(head) != 50*1024 || strings.Trim(head, "x") != "" {
		t.Errorf("kept %d bytes %q…, want the line's first 50 KB", len(head), head[:min(len(head), 20)])
	}
	if !strings.HasPrefix(notice, "50.0KB of 60.0KB shown") {
		t.Errorf("notice %q", notice)
	}
}
