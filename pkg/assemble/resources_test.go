package assemble_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/assemble"
	"gopi/pkg/tools"
)

// New loads the resources: the system prompt is built for the tools
// offered (task added by a defined agent) and ends with the output
// instructions; a general child gets the prompt without task; the
// catalog is the Assembly's.
func TestNewLoadsTheResources(t *testing.T) {
	s := settings(t)
	s.SystemPrompt = ""
	s.Resources = &assemble.ResourceSettings{AppendSystemPrompt: "APPENDED", OutputInstructions: "ANSWER IN JSON"}
	dir := filepath.Join(s.Cwd, ".gopi", "agents")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "scout.md"), []byte("---\ndescription: looks around\n---\nLook around."), 0o600); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	a, err := assemble.New(s, env(&stderr))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	got := a.Settings()
	if !slices.Equal(got.Tools, []string{"bash", tools.TaskName}) || len(got.Subagents.Agents) != 1 || a.Catalog() == nil {
		t.Fatalf("tools %q, agents %d, catalog %v", got.Tools, len(got.Subagents.Agents), a.Catalog())
	}
	if !strings.Contains(got.SystemPrompt, "APPENDED") || !strings.HasSuffix(got.SystemPrompt, "\n\nANSWER IN JSON") {
		t.Errorf("system prompt: %q", got.SystemPrompt)
	}
	if strings.Contains(got.Subagents.SystemPrompt, "ANSWER IN JSON") || got.Subagents.SystemPrompt == "" {
		t.Errorf("a child's prompt: %q", got.Subagents.SystemPrompt)
	}
	s.Subagents.NoTask = true
	b, err := assemble.New(s, env(&stderr))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if tl := b.Settings().Tools; !slices.Equal(tl, []string{"bash"}) {
		t.Errorf("task excluded, tools %q", tl)
	}
}

// A --system-prompt file that is refused is a usage error naming where
// the value came from, said before the model is chosen.
func TestNewRefusesAPromptFileFirst(t *testing.T) {
	s := settings(t)
	s.Model = assemble.ModelSettings{Provider: "anthropic"} // no key: refused later
	s.Resources = &assemble.ResourceSettings{SystemPrompt: "/dev/zero"}
	s.Origin = func(key string) string { return "--" + key }
	var stderr bytes.Buffer
	_, err := assemble.New(s, env(&stderr))
	if classOf(err) != ai.ClassUsage || !strings.Contains(err.Error(), "--systemPrompt names /dev/zero, which") {
		t.Fatalf("got %v", err)
	}
}
