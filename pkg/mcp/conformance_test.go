package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"gopi/pkg/mcp"
)

// The conformance client calls each tool of the server once with the
// least arguments its schema asks for, and prints each result.
func TestConformanceCallsEachTool(t *testing.T) {
	s := sdk.NewServer(&sdk.Implementation{Name: "conf", Version: "1"}, nil)
	s.AddTool(&sdk.Tool{Name: "args", InputSchema: map[string]any{"type": "object",
		"properties": map[string]any{"n": map[string]any{"type": "number"}, "c": map[string]any{"type": "string", "enum": []any{"red"}}},
		"required":   []any{"n", "c"}}},
		func(_ context.Context, r *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			var in map[string]any
			_ = json.Unmarshal(r.Params.Arguments, &in)
			b, _ := json.Marshal(in)
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(b)}}}, nil
		})
	s.AddTool(&sdk.Tool{Name: "broken", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "no"}}}, nil
		})
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)
	ts := httptest.NewServer(h)
	defer ts.Close()
	var out bytes.Buffer
	if err := mcp.Conformance(context.Background(), ts.URL, mcp.Options{Version: "test"}, &out); err != nil {
		t.Fatal(err)
	}
	want := `mcp__conformance__args isError=false [{"type":"text","text":"{\"c\":\"red\",\"n\":1}"}]` + "\n" +
		`mcp__conformance__broken isError=true [{"type":"text","text":"no"}]` + "\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}

// A server that does not start is its status's message.
func TestConformanceServerDown(t *testing.T) {
	ts := httptest.NewServer(http.NotFoundHandler())
	ts.Close()
	var out bytes.Buffer
	err := mcp.Conformance(context.Background(), ts.URL, mcp.Options{}, &out)
	if err == nil || !strings.HasPrefix(err.Error(), "MCP server conformance did not start: ") || out.Len() != 0 {
		t.Errorf("err %v, printed %q", err, out.String())
	}
}
