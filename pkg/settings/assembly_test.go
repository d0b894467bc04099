package settings

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"gopi/pkg/ai"
	"gopi/pkg/assemble"
	"gopi/pkg/mcp"
	"gopi/pkg/sandbox"
)

// everySetting sets every key Assembly reads, each to a value other than
// its default.
const everySetting = `{
 "provider": "anthropic", "model": "claude-x:low", "baseUrl": "http://localhost:9",
 "maxSteps": 7, "maxTokens": 100, "timeout": "90s", "fsync": "never",
 "systemPrompt": "the prompt", "appendSystemPrompt": "more",
 "maxPromptBytes": 1000, "maxBudgetTokens": 5000, "maxBudgetUsd": 1.5, "sessionDir": "sessions",
 "tools": ["read", "mytool"],
 "customTools": [{"name": "mytool", "command": "true", "parameters": {"type": "object"}}],
 "compaction": {"reserveTokens": 100, "keepRecentTokens": 200, "model": "faux/summary"},
 "hooks": {"beforeTool": [{"matcher": "bash", "command": "./policy.sh"}]},
 "secrets": ["MY_TOKEN"],
 "mcpServers": {"srv": {"command": "true"}},
 "mcp": {"startTimeout": 3, "timeout": 4},
 "telemetry": {"serviceName": "svc"},
 "subagents": {"maxConcurrency": 2, "maxDepth": 3},
 "retry": {"maxAttempts": 2}
}`

// notFromSettings are the fields of assemble.Settings that no flag or
// setting sets: the front door's (ClampThinking, OutputSchema,
// Catalog) or New's and Open's (SystemPrompt, SpillDir).
var notFromSettings = []string{"ClampThinking", "OutputSchema", "Catalog", "SystemPrompt", "SpillDir"}

// Assembly fills every field of assemble.Settings that a flag or a
// setting sets, and the table names every field but notFromSettings.
func TestAssemblyFillsEveryField(t *testing.T) {
	p := newPlace(t, "", everySetting)
	s := p.load(t, append(runFlags("thinking=high"), &flag{name: "max-tokens", value: "0", typ: "int"}), false)
	o := AgentOptions{Cwd: p.cwd, Bare: false, APIKey: "sk-key", MCPConfigs: nil, MoreMCP: []mcp.Server{{Name: "more", Command: "true"}},
		Sandbox:  &SandboxFlags{Mode: "read-only", ModeSet: true},
		Session:  assemble.SessionSettings{Path: "file.jsonl", Leaf: "abcd", Name: "n", NameSet: true},
		NoSkills: true, NoTemplates: true, NoContextFiles: true, ExcludeTools: []string{"task"}, Version: "v1"}
	set, err := s.Assembly(o)
	if err != nil {
		t.Fatal(err)
	}
	checks := map[string]bool{
		"Cwd":              set.Cwd == p.cwd,
		"Home":             set.Home == p.home,
		"Bare":             !set.Bare, // bare: TestAssemblyBare
		"Model":            set.Model.Provider == "anthropic" && set.Model.ID == "claude-x" && set.Model.Thinking == ai.ThinkingLow && set.Model.APIKey == "sk-key" && set.Model.BaseURL == "http://localhost:9" && set.Model.Retry.MaxAttempts == 2,
		"Thinking":         set.Thinking == ai.ThinkingHigh,
		"ThinkingExplicit": set.ThinkingExplicit,
		"MaxSteps":         set.MaxSteps == 7,
		"MaxTokens":        set.MaxTokens == 100,
		"Compaction":       set.Compaction.ReserveTokens == 100 && set.Compaction.KeepRecentTokens == 200,
		"CompactionModel":  set.CompactionModel == "faux/summary",
		"Limits":           set.Limits.Tokens == 5000 && set.Limits.USD == 1.5,
		"Tools":            slices.Equal(set.Tools, []string{"read", "mytool"}),
		"Custom":           len(set.Custom) == 1 && set.Custom[0].Spec().Name == "mytool",
		"Hooks":            len(set.Hooks.BeforeTool) == 1,
		"Secrets":          slices.Contains(set.Secrets, "MY_TOKEN"),
		"Resources": *set.Resources == assemble.ResourceSettings{SystemPrompt: "the prompt", AppendSystemPrompt: "more",
			NoSkills: true, NoTemplates: true, NoContextFiles: true},
		"Sandbox":        set.Sandbox != nil && set.Sandbox.Policy.Mode == sandbox.ReadOnly && set.Sandbox.Origin == "--sandbox",
		"MCP":            len(set.MCP.Servers) == 2 && set.MCP.Servers[1].Name == "more" && set.MCP.StartTimeout == 3*time.Second && set.MCP.CallTimeout == 4*time.Second,
		"Telemetry":      set.Telemetry.Settings.ServiceName == "svc" && set.Telemetry.Version == "v1",
		"Session":        set.Session.Path == "file.jsonl" && set.Session.Leaf == "abcd" && set.Session.NameSet && set.Session.NoSync && strings.HasSuffix(set.Session.Dir, "sessions"),
		"Subagents":      set.Subagents.MaxConcurrency == 2 && set.Subagents.MaxDepth == 3 && set.Subagents.NoTask,
		"Timeout":        set.Timeout == 90*time.Second,
		"MaxPromptBytes": set.MaxPromptBytes == 1000,
		"Origin":         set.Origin != nil && set.Origin("maxSteps") == `"maxSteps" in `+p.projectFile,
	}
	typ := reflect.TypeOf(set)
	for i := range typ.NumField() {
		name := typ.Field(i).Name
		ok, inTable := checks[name]
		switch {
		case slices.Contains(notFromSettings, name):
		case !inTable:
			t.Errorf("assemble.Settings.%s: not in the table (add it, or to notFromSettings)", name)
		case !ok:
			t.Errorf("assemble.Settings.%s: not filled: %+v", name, reflect.ValueOf(set).Field(i).Interface())
		}
	}
}

// Bare is the flag's, and a wrong value is refused in Assembly's order:
// the run's values before the model's.
func TestAssemblyOrder(t *testing.T) {
	p := newPlace(t, "", `{"maxSteps": 0, "baseUrl": "ftp://x"}`)
	_, err := p.load(t, runFlags(), true).Assembly(AgentOptions{Cwd: p.cwd, Bare: true})
	if err != nil {
		t.Fatalf("bare read a settings file: %v", err)
	}
	_, err = p.load(t, runFlags(), false).Assembly(AgentOptions{Cwd: p.cwd})
	if err == nil || !strings.Contains(err.Error(), "maxSteps") {
		t.Fatalf("want the maxSteps refusal first, got %v", err)
	}
	called := false
	p = newPlace(t, "", `{"baseUrl": "ftp://x"}`)
	_, err = p.load(t, runFlags(), false).Assembly(AgentOptions{Cwd: p.cwd, BeforeModel: func(*assemble.Settings) error { called = true; return nil }})
	if err == nil || !called {
		t.Fatalf("BeforeModel called %v, then the base URL refused: %v", called, err)
	}
}
