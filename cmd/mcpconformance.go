package cmd

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"gopi/internal/pijson"
	"gopi/pkg/ai"
	"gopi/pkg/mcp"
	"gopi/pkg/tools"
)

// newMCPConformanceCmd is the client under test of the MCP conformance
// suite (@modelcontextprotocol/conformance), which runs it with a
// server's URL: it connects as a run does (pkg/mcp over streamable
// HTTP), calls each tool once through the tool registry with the least
// arguments its schema asks for, prints each result, and stops.
func newMCPConformanceCmd(sys *System) *cobra.Command {
	return &cobra.Command{
		Use:    "conformance-client URL",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			m := mcp.Start(c.Context(), []mcp.Server{{Name: "conformance", URL: args[0], Source: "the command line"}},
				mcp.Options{Getenv: sys.getenv, Version: cmdVersion()})
			defer m.Close()
			st := m.Statuses()[0]
			if st.State != mcp.StateStarted {
				return fmt.Errorf("%s", st.Message())
			}
			reg, err := tools.NewRegistry(tools.Env{})
			if err != nil {
				return err
			}
			reg.AddSource(m)
			for i, spec := range reg.Specs() {
				call := ai.ToolCallContent(fmt.Sprintf("call%d", i), spec.Name, leastArgs(spec.Parameters))
				res := reg.Execute(c.Context(), call, nil)
				b, _ := pijson.Marshal(res.Content)
				fmt.Fprintf(sys.Stdout, "%s isError=%v %s\n", spec.Name, res.IsError, b)
			}
			return nil
		},
	}
}

// leastArgs makes the arguments a schema requires: 1 for a number, the
// first enum value or "x" for a string, true, {} or [].
func leastArgs(schema json.RawMessage) json.RawMessage {
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
