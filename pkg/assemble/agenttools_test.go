package assemble

import (
	"context"
	"slices"
	"strings"
	"testing"

	"gopi/internal/said"
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
	narrowTools(&s, &resources.Agent{Tools: []string{"mcp__*__ab"}})
	if s.MCP.Narrow("mcp__gh__ab") || s.MCP.Narrow("mcp__fs__x") || !s.MCP.Narrow("mcp__fs__ab") {
		t.Error("a second narrowing is not both narrowings")
	}
	src := narrowed{src: fixedSource{fakeTool("mcp__fs__ab"), fakeTool("mcp__gh__ab")}, keep: s.MCP.Narrow}
	if got := src.Tools(); len(got) != 1 || got[0].Spec().Name != "mcp__fs__ab" {
		t.Errorf("the narrowed source offers %v, want mcp__fs__ab alone", got)
	}
}

type fakeTool string

func (f fakeTool) Spec() ai.ToolSpec { return ai.ToolSpec{Name: string(f)} }
func (f fakeTool) Run(context.Context, tools.Call) (tools.Result, error) {
	return tools.Result{}, nil
}

// Each problem of the agents' tools is said on stderr once per
// invocation, and returned for the agent used every time; nothing when
// the run offers no task tool.
func TestWarnAgentTools(t *testing.T) {
	t.Parallel()
	agents := []resources.Agent{
		{Name: "a", Path: "a.md", Tools: []string{"reed", "mcp__x__y", "deploy"}},
		{Name: "b", Path: "b.md", Tools: []string{"bsh"}},
	}
	var stderr strings.Builder
	a := &Assembly{s: Settings{Tools: []string{"read", "task"}, Custom: []tools.Tool{fakeTool("deploy")}, Subagents: SubagentSettings{Agents: agents}},
		env: Env{Stderr: &stderr}, held: &holdings{said: &said.Set{}}}
	if got := a.warnAgentTools(nil, false); len(got) != 2 || !strings.Contains(got[0], "a.md") || !strings.Contains(got[1], `b.md: "tools" names "bsh"`) {
		t.Fatalf("loaded: %q", got)
	}
	if got := a.warnAgentTools(&agents[0], true); len(got) != 2 || !strings.Contains(got[1], `"mcp__x__y", which no MCP server`) {
		t.Fatalf("used: %q", got)
	}
	if got := a.warnAgentTools(&agents[0], true); len(got) != 2 {
		t.Fatalf("used again: %q", got)
	}
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], `gopi: warning: agent file a.md: "tools" names "reed"`) ||
		!strings.HasPrefix(lines[1], `gopi: warning: agent file b.md: "tools" names "bsh"`) || !strings.HasPrefix(lines[2], `gopi: warning: agent file a.md: "tools" names "mcp__x__y"`) {
		t.Fatalf("stderr:\n%s\nwant each problem once", stderr.String())
	}
	a.s.Tools = []string{"read"}
	if got := a.warnAgentTools(nil, true); got != nil {
		t.Errorf("without the task tool: %q", got)
	}
}

type fixedSource []tools.Tool

func (f fixedSource) Tools() []tools.Tool { return slices.Clone([]tools.Tool(f)) }
