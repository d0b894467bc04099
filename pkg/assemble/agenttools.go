package assemble

import (
	"fmt"
	"slices"
	"strings"

	"gopi/internal/nearest"
	"gopi/pkg/resources"
	"gopi/pkg/tools"
)

// narrowTools narrows s to the tools def names, by name or * pattern: the
// parent's built-in and custom tools an entry matches, and of the MCP
// tools the parent is offered those an entry matches (MCPSettings.Narrow),
// so an agent's tools only ever narrow the parent's. An agent without
// tools keeps the parent's.
func narrowTools(s *Settings, def *resources.Agent) {
	if def.Tools == nil {
		return
	}
	named := func(name string) bool {
		return slices.ContainsFunc(def.Tools, func(e string) bool { return tools.MatchName(e, name) })
	}
	s.Tools = slices.DeleteFunc(slices.Clone(s.Tools), func(n string) bool { return !named(n) })
	if len(s.Custom) > 0 {
		s.Custom = slices.DeleteFunc(slices.Clone(s.Custom), func(t tools.Tool) bool { return !named(t.Spec().Name) })
	}
	if prev := s.MCP.Narrow; prev != nil { // a grandchild narrows its parent's narrowing
		s.MCP.Narrow = func(n string) bool { return prev(n) && named(n) }
	} else {
		s.MCP.Narrow = named
	}
}

// narrowed is a tool source with only the tools keep takes.
type narrowed struct {
	src  tools.Source
	keep func(name string) bool
}

func (n narrowed) Tools() []tools.Tool {
	return slices.DeleteFunc(n.src.Tools(), func(t tools.Tool) bool { return !n.keep(t.Spec().Name) })
}

// knownTools are the names of the tools a run may offer: the built-in
// ones, task, the custom tools and, when withMCP, the MCP tools the
// servers offer now.
func (a *Assembly) knownTools(withMCP bool) []string {
	known := append(slices.Clone(tools.AllNames), tools.TaskName)
	for _, t := range a.s.Custom {
		known = append(known, t.Spec().Name)
	}
	if !withMCP || a.held == nil {
		return known
	}
	a.held.mu.Lock()
	m := a.held.mcp
	a.held.mu.Unlock()
	if m != nil {
		for _, t := range m.Tools() {
			known = append(known, t.Spec().Name)
		}
	}
	return known
}

// agentToolProblems says, in the user's words, each entry of def's tools
// that names no tool of known (a name, or a pattern that matches none),
// with the nearest name when one is close. Entries about MCP tools
// (mcp__...) are left alone unless withMCP: their tools are known only
// once the servers run.
func agentToolProblems(def *resources.Agent, known []string, withMCP bool) []string {
	var out []string
	for _, e := range def.Tools {
		if !withMCP && strings.HasPrefix(e, "mcp__") {
			continue
		}
		if slices.ContainsFunc(known, func(n string) bool { return tools.MatchName(e, n) }) {
			continue
		}
		var msg string
		switch {
		case strings.Contains(e, "*"):
			msg = fmt.Sprintf("agent file %s: \"tools\" has the pattern %q, which matches no tool of this run", def.Path, e)
		case strings.HasPrefix(e, "mcp__"):
			msg = fmt.Sprintf("agent file %s: \"tools\" names %q, which no MCP server of this run offers", def.Path, e)
		default:
			msg = fmt.Sprintf("agent file %s: \"tools\" names %q, which is no tool of this run", def.Path, e)
		}
		if near := nearest.Name(e, known); near != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", near)
		}
		out = append(out, msg+"; the agent runs without it")
	}
	return out
}

// warnAgentTools says on stderr, once per invocation (Env.Said: a chat,
// rpc or acp process's sessions share it), each tool an
// agent file names that is no tool of this run: when the agents are
// loaded (withMCP false: the MCP servers have not started) and when one
// is used (withMCP true). It returns every problem of def (all agents
// when def is nil), said before or not.
func (a *Assembly) warnAgentTools(def *resources.Agent, withMCP bool) []string {
	if !slices.Contains(a.s.Tools, tools.TaskName) || a.held == nil {
		return nil
	}
	known := a.knownTools(withMCP)
	var all []string
	for i := range a.s.Subagents.Agents {
		ag := &a.s.Subagents.Agents[i]
		if def != nil && ag.Name != def.Name {
			continue
		}
		for _, p := range agentToolProblems(ag, known, withMCP) {
			all = append(all, p)
			if a.held.said.First(p) {
				fmt.Fprintf(a.env.Stderr, "gopi: warning: %s\n", p)
			}
		}
	}
	return all
}
