package assemble_test

import (
	"bytes"
	"strings"
	"testing"

	"gopi/internal/fdcheck"
	"gopi/pkg/ai"
	"gopi/pkg/assemble"
	"gopi/pkg/loop"
)

// The compaction model is refused unless it is provider/id of a provider
// the settings can reach, with prices when a dollar budget counts them.
func TestCompactionModelRefused(t *testing.T) {
	fdcheck.Check(t)
	for ref, want := range map[string]string{
		"claude-haiku":       `setting "compaction": "model" is "claude-haiku": give provider/id, such as anthropic/claude-haiku-4-5`,
		"anthropic/":         `"model" is "anthropic/": give provider/id`,
		"/claude-haiku":      `"model" is "/claude-haiku": give provider/id`,
		"nosuch/x":           `setting "compaction": "model" "nosuch/x": unknown provider "nosuch"`,
		"anthropic/claude-x": `setting "compaction": "model" "anthropic/claude-x": no API key for anthropic`,
		"faux/nosuch-script": `"model" "faux/nosuch-script": faux model`,
	} {
		s := settings(t)
		s.CompactionModel = ref
		var stderr bytes.Buffer
		a, err := assemble.Build(s, env(&stderr))
		if err == nil {
			dispose(t, a)
			a.Close()
		}
		if classOf(err) != ai.ClassUsage || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", ref, err, want)
		}
	}
	s := settings(t)
	s.Model = assemble.ModelSettings{Provider: "anthropic", ID: "claude-sonnet-4-5", APIKey: "sk-flag-0123456789"}
	s.Limits = loop.Limits{USD: 1}
	s.CompactionModel = "anthropic/claude-x"
	var stderr bytes.Buffer
	_, err := assemble.Build(s, env(&stderr))
	if classOf(err) != ai.ClassUsage || !strings.Contains(err.Error(), `setting "compaction": model anthropic/claude-x has no prices, so what its summaries spend cannot be counted in dollars`) {
		t.Errorf("no prices: %v", err)
	}
}

// A compaction model of the run's own provider uses the run's key (from
// --api-key); of another provider, that provider's own.
func TestCompactionModelKey(t *testing.T) {
	fdcheck.Check(t)
	s := settings(t)
	s.Session.None = true
	s.Model = assemble.ModelSettings{Provider: "anthropic", ID: "claude-sonnet-4-5", APIKey: "sk-flag-0123456789"}
	s.CompactionModel = "anthropic/claude-3-5-haiku-latest"
	var stderr bytes.Buffer
	a, err := assemble.Build(s, env(&stderr))
	if err != nil {
		t.Fatalf("the run's key: %v", err)
	}
	// A switch to another provider resolves it again, without the key.
	_, err = a.Reopen(assemble.Want{ModelRef: "faux/demo"})
	if classOf(err) != ai.ClassUsage || !strings.Contains(err.Error(), "no API key for anthropic") {
		t.Errorf("another provider's run: %v", err)
	}
	dispose(t, a)
	a.Close()

	s.CompactionModel = "openai/gpt-4.1"
	if _, err := assemble.Build(s, env(&stderr)); classOf(err) != ai.ClassUsage || !strings.Contains(err.Error(), "no API key for openai") {
		t.Errorf("another provider: %v", err)
	}
	e := env(&stderr)
	e.Environ = append(e.Environ, "OPENAI_API_KEY=sk-o-0123456789")
	b, err := assemble.Build(s, e)
	if err != nil {
		t.Fatal(err)
	}
	dispose(t, b)
	b.Close()
}
