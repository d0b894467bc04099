package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"gopi/internal/pijson"
	"gopi/pkg/ai"
	"gopi/pkg/tools"
)

// Conformance is the client under test of the MCP conformance suite
// (@modelcontextprotocol/conformance), which runs it with a server's
// URL: it connects as a run does (streamable HTTP), calls each tool once
// through the tool registry with the least arguments its schema asks
// for, prints each result to w, and stops the server. A server that does
// not start is its status's Message.
func Conformance(ctx context.Context, url string, opts Options, w io.Writer) error {
	m := Start(ctx, []Server{{Name: "conformance", URL: url, Source: "the command line"}}, opts)
	defer m.Close()
	st := m.Statuses()[0]
	if st.State != StateStarted {
		return errors.New(st.Message())
	}
	reg, err := tools.NewRegistry(tools.Env{})
	if err != nil {
		return err
	}
	reg.AddSource(m)
	for i, spec := range reg.Specs() {
		call := ai.ToolCallContent(fmt.Sprintf("call%d", i), spec.Name, LeastArgs(spec.Parameters))
		res := reg.Execute(ctx, call, nil)
		b, _ := pijson.Marshal(res.Content)
		fmt.Fprintf(w, "%s isError=%v %s\n", spec.Name, res.IsError, b)
	}
	return nil
}

// LeastArgs makes the arguments a schema requires: 1 for a number, the
// first enum value or "x" for a string, true, {} or [].
func LeastArgs(schema json.RawMessage) json.RawMessage {
	var s struct {
		Properties map[string]struct {
			Type string `json:"type"`
			Enum []any  `json:"enum"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	_ = json.Unmarshal(schema, &s)
	args := map[string]any{}
	for _, name := range s.Required {
		p := s.Properties[name]
		switch {
		case len(p.Enum) > 0:
			args[name] = p.Enum[0]
		case p.Type == "number" || p.Type == "integer":
			args[name] = 1
		case p.Type == "boolean":
			args[name] = true
		case p.Type == "object":
			args[name] = map[string]any{}
		case p.Type == "array":
			args[name] = []any{}
		default:
			args[name] = "x"
		}
	}
	b, _ := json.Marshal(args)
	return b
}
