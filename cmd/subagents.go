package cmd

import (
	"slices"

	"gopi/pkg/assemble"
	"gopi/pkg/resources"
	"gopi/pkg/tools"
)

// subagentSettings is the "subagents" setting:
// {"maxConcurrency": 4, "maxDepth": 1}.
type subagentSettings struct {
	MaxConcurrency *int `json:"maxConcurrency"`
	MaxDepth       *int `json:"maxDepth"`
}

// readSubagents reads the "subagents" setting and the agents the catalog
// found. Defined agents offer the task tool unless no tools are offered
// or --exclude-tools names it.
func readSubagents(c *settings, cat *resources.Catalog, toolSel []string, exclude []string) (assemble.SubagentSettings, []string, error) {
	var s subagentSettings
	if err := c.decode("subagents", &s); err != nil {
		return assemble.SubagentSettings{}, nil, err
	}
	out := assemble.SubagentSettings{Agents: cat.Agents}
	for _, f := range []struct {
		name string
		val  *int
		dst  *int
	}{{"maxConcurrency", s.MaxConcurrency, &out.MaxConcurrency}, {"maxDepth", s.MaxDepth, &out.MaxDepth}} {
		if f.val == nil {
			continue
		}
		if *f.val <= 0 {
			return assemble.SubagentSettings{}, nil, usageErr("%s: %q is %d: give a whole number above 0", c.origin("subagents"), f.name, *f.val)
		}
		*f.dst = *f.val
	}
	if len(cat.Agents) > 0 && len(toolSel) > 0 && !slices.Contains(toolSel, tools.TaskName) &&
		!slices.ContainsFunc(exclude, func(e string) bool { return matchTool(e, tools.TaskName) }) {
		toolSel = append(slices.Clone(toolSel), tools.TaskName)
	}
	// A general child's prompt: the parent's tools, task only when it may
	// delegate again; no output schema.
	childTools := toolSel
	if out.MaxDepth <= 1 {
		childTools = slices.DeleteFunc(slices.Clone(toolSel), func(n string) bool { return n == tools.TaskName })
	}
	out.SystemPrompt = cat.SystemPromptFor(childTools)
	return out, toolSel, nil
}
