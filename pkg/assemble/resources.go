package assemble

import (
	"errors"
	"fmt"
	"slices"

	"gopi/pkg/resources"
	"gopi/pkg/tools"
)

// ResourceSettings say what an Assembly discovers in the working folder,
// $GOPI_HOME and the user's home: the system prompt, the context files,
// skills, templates and defined agents (resources.Load); Settings.Bare
// discovers none of them.
type ResourceSettings struct {
	// SystemPrompt and AppendSystemPrompt are --system-prompt and
	// --append-system-prompt (or their settings): text, or a file
	// holding it; "" discovers SYSTEM.md and APPEND_SYSTEM.md.
	SystemPrompt, AppendSystemPrompt      string
	NoSkills, NoTemplates, NoContextFiles bool
	// OutputInstructions are appended to the system prompt (an output
	// schema's instructions); "" for none.
	OutputInstructions string
}

// LoadCatalog loads the resources of s (s.Resources; nil: none are
// discovered) for the tools s offers. A --system-prompt or systemPrompt
// naming a file that is refused is a usage error naming where the value
// came from. It says nothing of what it skipped (Catalog.Warnings,
// Catalog.Skipped).
func LoadCatalog(s Settings, env Env) (*resources.Catalog, error) {
	r := s.Resources
	if r == nil {
		r = &ResourceSettings{}
	}
	cat, err := resources.Load(resources.Options{
		Cwd: s.Cwd, Home: env.Getenv("HOME"), GopiHome: s.Home, Now: env.Now,
		SystemPrompt: r.SystemPrompt, AppendSystemPrompt: r.AppendSystemPrompt,
		ActiveTools: s.Tools, NoSkills: r.NoSkills, NoTemplates: r.NoTemplates, NoContextFiles: r.NoContextFiles, Bare: s.Bare,
	})
	var pe *resources.PromptFileError
	switch {
	case errors.As(err, &pe):
		key := "systemPrompt"
		if pe.Kind == resources.KindAppend {
			key = "appendSystemPrompt"
		}
		return nil, Usagef("%s names %s, which %v: give a regular file of at most 1 MiB, or the text itself", s.origin(key), pe.Path, pe.Err)
	case err != nil:
		return nil, Usagef("%v", err)
	}
	return cat, nil
}

// Resources is LoadCatalog saying, on env.Stderr, each warning and each
// resource skipped for a fault (a discovery switched off on purpose is
// not news).
func Resources(s Settings, env Env) (*resources.Catalog, error) {
	cat, err := LoadCatalog(s, env)
	if err != nil {
		return nil, err
	}
	for _, w := range cat.Warnings {
		fmt.Fprintf(env.Stderr, "gopi: warning: %s\n", w)
	}
	for _, sk := range cat.Skipped {
		if sk.Path != "" {
			fmt.Fprintf(env.Stderr, "gopi: %s\n", sk)
		}
	}
	return cat, nil
}

// applyCatalog sets what the catalog decides in s: the defined agents
// (which add the task tool unless no tools are offered or
// Subagents.NoTask), the system prompt for the tools offered with the
// output instructions, and a general child's prompt.
func applyCatalog(s *Settings, cat *resources.Catalog) {
	toolSel := s.Tools
	if len(cat.Agents) > 0 && len(toolSel) > 0 && !slices.Contains(toolSel, tools.TaskName) && !s.Subagents.NoTask {
		toolSel = append(slices.Clone(toolSel), tools.TaskName)
	}
	// An agent's prompt is its body with the project's context (unless
	// it opts out), as Catalog.AgentPrompt builds it.
	s.Subagents.Agents = slices.Clone(cat.Agents)
	for i, ag := range s.Subagents.Agents {
		s.Subagents.Agents[i].Prompt = cat.AgentPrompt(ag)
	}
	// A general child's prompt: the parent's tools, task only when it may
	// delegate again; no output schema.
	childTools := toolSel
	if s.Subagents.maxDepth() <= 1 {
		childTools = slices.DeleteFunc(slices.Clone(toolSel), func(n string) bool { return n == tools.TaskName })
	}
	s.Subagents.SystemPrompt = cat.SystemPromptFor(childTools)
	s.Tools = toolSel
	s.SystemPrompt = cat.SystemPromptFor(toolSel)
	if s.Resources != nil && s.Resources.OutputInstructions != "" {
		s.SystemPrompt += "\n\n" + s.Resources.OutputInstructions
	}
}

// Catalog is the resources the Assembly loaded (templates and skills
// expand prompts with it); nil without Settings.Resources.
func (a *Assembly) Catalog() *resources.Catalog { return a.cat }
