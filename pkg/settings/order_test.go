package settings

import (
	"errors"
	"strings"
	"testing"

	"gopi/pkg/assemble"
)

// Assembly refuses in a fixed order: the run's values, the sandbox, the
// MCP servers, BeforeModel, the model, the sub-agents. Each case makes
// its stage and every later one wrong: the first is the one said.
func TestAssemblyRefusalOrder(t *testing.T) {
	stop := errors.New("before the model")
	stages := []struct {
		name, project string
		sandbox       *SandboxFlags
		before        error
		want          string
	}{
		{name: "run", project: `"maxSteps": 0`, want: `"maxSteps" in FILE "0": give a whole number above 0`},
		{name: "sandbox", project: `"sandbox": {"mode": "open"}`, sandbox: &SandboxFlags{}, want: `"sandbox.mode" in settings: "open" is not a sandbox mode: use read-only, workspace-write or off`},
		{name: "mcp", project: `"mcp": {"timeout": -1}`, want: `"mcp" in FILE: "mcp".timeout -1: give seconds above 0 and at most 86400`},
		{name: "before the model", before: stop, want: stop.Error()},
		{name: "model", project: `"baseUrl": "ftp://x"`, want: `"baseUrl" in FILE "ftp://x" is no API address: give it with http:// or https://, such as http://localhost:8080/v1`},
		{name: "subagents", project: `"subagents": {"maxDepth": 0}`, want: `"subagents" in FILE: "maxDepth" is 0: give a whole number above 0`},
	}
	for i, c := range stages {
		var keys []string
		var sb *SandboxFlags
		var before error
		for _, later := range stages[i:] {
			if later.project != "" {
				keys = append(keys, later.project)
			}
			if later.sandbox != nil {
				sb = later.sandbox
			}
			if later.before != nil {
				before = later.before
			}
		}
		p := newPlace(t, "", "{"+strings.Join(keys, ",")+"}")
		called := false
		_, err := p.load(t, runFlags(), false).Assembly(AgentOptions{Cwd: p.cwd, Sandbox: sb,
			BeforeModel: func(*assemble.Settings) error { called = true; return before }})
		want := strings.ReplaceAll(c.want, "FILE", p.projectFile)
		if err == nil || err.Error() != want {
			t.Errorf("%s first: %v, want %s", c.name, err, want)
		}
		if reached := i >= 3; called != reached { // stages[3] is BeforeModel's
			t.Errorf("%s first: BeforeModel called %v", c.name, called)
		}
	}
}

// BeforeModel sees the run's values, the sandbox and the MCP servers,
// and what it changes stays.
func TestAssemblyBeforeModel(t *testing.T) {
	p := newPlace(t, "", `{"maxSteps": 3, "mcpServers": {"s": {"command": "x"}}}`)
	var seen assemble.Settings
	set, err := p.load(t, runFlags(), false).Assembly(AgentOptions{Cwd: p.cwd, Sandbox: &SandboxFlags{},
		BeforeModel: func(s *assemble.Settings) error { seen = *s; s.OutputSchema = []byte(`{}`); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	if seen.Sandbox == nil || len(seen.MCP.Servers) != 1 || len(seen.Tools) == 0 || string(set.OutputSchema) != `{}` {
		t.Errorf("BeforeModel saw %+v", seen)
	}
}

// Without sandbox flags there is no sandbox; the thinking level of a
// variable is not the flag's; excluding other tools keeps the task tool.
func TestAssemblyDefaults(t *testing.T) {
	p := newPlace(t, "", "")
	p.env = map[string]string{"GOPI_THINKING": "low"}
	set, err := p.load(t, runFlags(), false).Assembly(AgentOptions{Cwd: p.cwd, ExcludeTools: []string{"bash", "t*x"}})
	if err != nil {
		t.Fatal(err)
	}
	if set.Sandbox != nil || set.ThinkingExplicit || set.Thinking != "low" || set.Subagents.NoTask || set.MaxSteps != 25 ||
		set.MaxPromptBytes != DefaultMaxPromptBytes || strings.Join(set.Tools, ",") != "read,write,edit" {
		t.Errorf("defaults %+v", set)
	}
	set, err = p.load(t, runFlags(), false).Assembly(AgentOptions{Cwd: p.cwd, ExcludeTools: []string{"ta*"}})
	if err != nil || !set.Subagents.NoTask {
		t.Errorf("ta* does not exclude the task tool: %v", err)
	}
}

// Context reads the tools, the custom tools and the MCP servers, and
// refuses a wrong one; it reads no run value, model or sandbox.
func TestContext(t *testing.T) {
	p := newPlace(t, "", `{"maxSteps": 0, "baseUrl": "ftp://x", "sandbox": {"mode": "open"}, "tools": "read,mine",
		"customTools": [{"name": "mine", "command": "true"}], "mcpServers": {"s": {"command": "x"}}}`)
	set, err := p.load(t, runFlags(), false).Context(AgentOptions{Cwd: p.cwd, Bare: true})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(set.Tools, ",") != "read,mine" || len(set.Custom) != 1 || len(set.MCP.Servers) != 0 || !set.Bare || set.Home != p.home || set.Cwd != p.cwd {
		t.Errorf("context %+v", set)
	}
	for _, c := range []struct{ project, want string }{
		{`{"tools": "teleport"}`, `"tools" in FILE: unknown tool "teleport": choose from read,write,edit,bash,grep,find,ls,task, or declare it under "customTools" in settings`},
		{`{"customTools": [{"name": "mine", "command": ""}]}`, `settings FILE: custom tool "mine": give the command it runs`},
		{`{"mcpServers": {"s": {}}}`, `settings FILE: MCP server "s": give "command" (a program run over stdio) or "url" (a streamable HTTP endpoint)`},
	} {
		p := newPlace(t, "", c.project)
		_, err := p.load(t, runFlags(), false).Context(AgentOptions{Cwd: p.cwd})
		usage(t, c.project, err, strings.ReplaceAll(c.want, "FILE", p.projectFile))
	}
}

// Assembly, like Context, says when a system prompt looks like a
// missing file.
func TestAssemblyWarnsOfAMissingPromptFile(t *testing.T) {
	p := newPlace(t, "", `{"appendSystemPrompt": "notes/extra.md"}`)
	if _, err := p.load(t, runFlags(), false).Assembly(AgentOptions{Cwd: p.cwd}); err != nil {
		t.Fatal(err)
	}
	want := `gopi: warning: "appendSystemPrompt" in ` + p.projectFile + ` "notes/extra.md" names no file; it is used as the prompt text itself` + "\n"
	if p.stderr.String() != want {
		t.Errorf("stderr %q, want %q", p.stderr.String(), want)
	}
}
