package assemble

import (
	"context"
	"slices"
	"strings"
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/resources"
	"gopi/pkg/tools"
)

// An agent's tools narrow by name and pattern, MCP tools through Narrow;
// each entry that names no tool of the run is said with the file, the
// entry and the near name, MCP entries only once the servers are known.
func TestAgentTools(t *testing.T) {
	t.Parallel()
	def := &resources.Agent{Path: "/p/.gopi/agents/r.md", Tools: []string{"read", "reed", "mcp__fs__*", "mcp__gh__issue", "zz*"}}
	s := Settings{Tools: []string{"read", "bash", "write"}, Custom: []tools.Tool{fakeTool("deploy")}}
	narrowTools(&s, def)
	if !slices.Equal(s.Tools, []string{"read"}) || len(s.Custom) != 0 {
		t.Errorf("narrowed to %v and %d custom tools, want [read] and none", s.Tools, len(s.Custom))
	}
	if s.MCP.Narrow == nil || !s.MCP.Narrow("mcp__fs__read_file") || s.MCP.Narrow("mcp__fs2__x") || s.MCP.Narrow("bash") {
		t.Error("Narrow does not take exactly the MCP tools the agent names")
	}
	known := []string{"read", "bash", "mcp__fs__read_file"}
	got := agentToolProblems(def, known, false)
	if len(got) != 2 || !strings.Contains(got[0], `agent file /p/.gopi/agents/r.md: "tools" names "reed", which is no tool of this run (did you mean "read"?)`) ||
		!strings.Contains(got[1], `the pattern "zz*", which matches no tool`) {
		t.Errorf("before the servers run: %q", got)
	}
	got = agentToolProblems(def, known, true)
	if len(got) != 3 || !strings.Contains(got[1], `"mcp__gh__issue", which no MCP server of this run offers`) {
		t.Errorf("with the servers' tools: %q", got)
	}
	if got := agentToolProblems(&resources.Agent{Tools: []string{"read", "mcp__fs__*"}}, known, true); got != nil {
		t.Errorf("known tools: %q", got)
	}
	// A grandchild's narrowing keeps its parent's.
	narrowTools(&s, &resources.Agent{Tools: []string{"mcp__*"}})
	if s.MCP.Narrow("mcp__gh__pr") || !s.MCP.Narrow("mcp__fs__x") {
		t.Error("a second narrowing widened the first")
	}
}

type fakeTool string

func (f fakeTool) Spec() ai.ToolSpec { return ai.ToolSpec{Name: string(f)} }
func (f fakeTool) Run(context.Context, tools.Call) (tools.Result, error) {
	return tools.Result{}, nil
}
