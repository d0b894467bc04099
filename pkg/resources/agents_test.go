package resources

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// An agent file's frontmatter: name defaults to the file's, description is
// required, tools a list or a comma-separated string, maxSteps a positive
// whole number; the body is the prompt.
func TestParseAgent(t *testing.T) {
	t.Parallel()
	a, err := parseAgent("---\ndescription: Reviews.\ntools: [read, grep]\nmodel: anthropic/claude-haiku-4-5\nthinking: low\nmaxSteps: 5\n---\nYou review.\n", "reviewer")
	if err != nil {
		t.Fatal(err)
	}
	if a.Name != "reviewer" || a.Description != "Reviews." || !slices.Equal(a.Tools, []string{"read", "grep"}) ||
		a.Model != "anthropic/claude-haiku-4-5" || a.Thinking != "low" || a.MaxSteps != 5 || a.Prompt != "You review." {
		t.Fatalf("%+v", a)
	}
	if a, err = parseAgent("---\nname: x\ndescription: d\ntools: read, bash\n---\nbody", "file"); err != nil || a.Name != "x" || !slices.Equal(a.Tools, []string{"read", "bash"}) {
		t.Fatalf("%+v %v", a, err)
	}
	for text, want := range map[string]string{
		"just a body": "no description",
		"---\ndescription: d\nmaxSteps: 0\n---\n":       "maxSteps",
		"---\ndescription: d\ntools: 3\n---\n":          "tools",
		"---\nname: Bad Name\ndescription: d\n---\n":    "lowercase",
		"---\ndescription: d\nthinking: ultra\n---\n":   "use one of off, minimal",
		"---\ndescription: d\nnoContextFiles: 1\n---\n": "noContextFiles",
	} {
		if _, err := parseAgent(text, "f"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want an error naming %s", text, err, want)
		}
	}
}

// An agent's system prompt is its body, the project's context files (the
// parent's prompt has them) unless noContextFiles, and where and when;
// an agent without a body has none of its own.
func TestAgentPrompt(t *testing.T) {
	t.Parallel()
	c := &Catalog{ContextFiles: []ContextFile{{Path: "/p/AGENTS.md", Content: "Use tabs.\n"}}, cwd: "/p",
		now: func() time.Time { return time.Date(2026, 5, 2, 0, 0, 0, 0, time.UTC) }}
	a, err := parseAgent("---\ndescription: d\n---\nYou review.\n", "r")
	if err != nil {
		t.Fatal(err)
	}
	want := "You review.\n\n# Project Context\n\nProject-specific instructions and guidelines:\n\n## /p/AGENTS.md\n\nUse tabs.\n\nCurrent date: 2026-05-02\nCurrent working directory: /p"
	if got := c.AgentPrompt(a); got != want {
		t.Errorf("AgentPrompt = %q, want %q", got, want)
	}
	if a, err = parseAgent("---\ndescription: d\nnoContextFiles: true\n---\nYou review.\n", "r"); err != nil || !a.NoContextFiles {
		t.Fatalf("%+v %v", a, err)
	}
	if got := c.AgentPrompt(a); got != "You review.\n\nCurrent date: 2026-05-02\nCurrent working directory: /p" {
		t.Errorf("noContextFiles: AgentPrompt = %q", got)
	}
	if got := c.AgentPrompt(Agent{Prompt: " \n"}); got != "" {
		t.Errorf("no body: AgentPrompt = %q, want none", got)
	}
}
