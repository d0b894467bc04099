package catalog

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"gopi/pkg/ai"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestBuiltinParses(t *testing.T) {
	data, err := os.ReadFile("catalog.json")
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	// builtin.go is catalog.json as Go data: the binary reads no JSON.
	if diff := cmp.Diff(parsed, Builtin(), cmp.AllowUnexported(Catalog{})); diff != "" {
		t.Fatalf("builtin.go differs from catalog.json; run go generate ./pkg/ai/catalog (-json +builtin):\n%s", diff)
	}
	if err := Builtin().check(); err != nil {
		t.Fatal(err)
	}
	if n := len(ForProvider("anthropic")); n < 5 {
		t.Errorf("%d anthropic models", n)
	}
	if n := len(ForProvider("openai")); n < 5 {
		t.Errorf("%d openai models", n)
	}
}

func TestLookupAndDefaults(t *testing.T) {
	m, ok := Lookup("anthropic", "claude-sonnet-4-5")
	if !ok || m.ContextWindow != 200000 || m.Prices.Input != 3 || m.Prices.CacheWrite != 3.75 || !m.Reasoning || m.API != "anthropic-messages" {
		t.Errorf("claude-sonnet-4-5 = %+v, %v", m, ok)
	}
	for _, p := range []string{"anthropic", "openai"} {
		d, ok := Default(p)
		if !ok || d.Provider != p {
			t.Errorf("default of %s = %+v, %v", p, d, ok)
		}
	}
	if _, ok := Lookup("openai", "claude-sonnet-4-5"); ok {
		t.Error("a model was found under another provider")
	}
}

func TestResolveUnknownModel(t *testing.T) {
	info, known := Resolve("openai", "qwen3-coder:30b")
	want := ai.Info{ID: "qwen3-coder:30b", Name: "qwen3-coder:30b", Provider: "openai", API: "openai-completions",
		ContextWindow: 128000, MaxOutputTokens: 16384}
	if known || info != want {
		t.Errorf("Resolve = %+v, %v; want %+v, false", info, known, want)
	}
	if info, known := Resolve("ollama", "llama3"); known || info.API != "" || info.ContextWindow != DefaultContextWindow {
		t.Errorf("unknown provider: %+v, %v", info, known)
	}
}

func TestCopiesAreIndependent(t *testing.T) {
	all := All()
	all[0].ID = "changed"
	if All()[0].ID == "changed" {
		t.Error("All shares its slice with the catalog")
	}
}

func TestParseRejectsBadData(t *testing.T) {
	tests := map[string]string{
		"unknown provider": `{"providers":[],"models":[{"id":"m","provider":"x","contextWindow":1,"maxOutputTokens":1}]}`,
		"zero limits":      `{"providers":[{"name":"p","api":"a","defaultModel":"m"}],"models":[{"id":"m","provider":"p","api":"a"}]}`,
		"missing default":  `{"providers":[{"name":"p","api":"a","defaultModel":"nope"}],"models":[]}`,
		"duplicate": `{"providers":[{"name":"p","api":"a","defaultModel":"m"}],"models":[
			{"id":"m","provider":"p","api":"a","contextWindow":1,"maxOutputTokens":1},{"id":"m","provider":"p","api":"a","contextWindow":1,"maxOutputTokens":1}]}`,
		"api the provider does not serve": `{"providers":[{"name":"p","api":"a","apis":["b"],"defaultModel":"m"}],"models":[
			{"id":"m","provider":"p","api":"a","contextWindow":1,"maxOutputTokens":1},{"id":"n","provider":"p","api":"c","contextWindow":1,"maxOutputTokens":1}]}`,
		"not json": `{`,
	}
	for name, data := range tests {
		if _, err := Parse([]byte(data)); err == nil || !strings.HasPrefix(err.Error(), "model catalog") {
			t.Errorf("%s: err = %v", name, err)
		}
	}
}

// The codex and -pro models are served by the Responses API only: the
// catalog says so, and gopi picks the adapter from it.
func TestResponsesOnlyModels(t *testing.T) {
	n := 0
	for _, m := range ForProvider("openai") {
		only := strings.Contains(m.ID, "codex") || strings.HasSuffix(m.ID, "-pro")
		if only != (m.API == "openai-responses") {
			t.Errorf("%s: api %q", m.ID, m.API)
		}
		if only {
			n++
		}
	}
	if n < 5 {
		t.Errorf("%d responses-only models", n)
	}
	m, ok := Lookup("openai", "gpt-5-codex")
	if !ok || m.API != "openai-responses" || m.ContextWindow != 400000 || m.Prices.CacheRead != 0.125 || !m.Reasoning {
		t.Errorf("gpt-5-codex = %+v, %v", m, ok)
	}
	if info, known := Resolve("openai", "gpt-9"); known || info.API != "openai-completions" {
		t.Errorf("an unknown id keeps the provider's own api: %+v", info)
	}
	p, _ := Builtin().Provider("openai")
	p.APIs[0] = "changed"
	if q, _ := Builtin().Provider("openai"); q.APIs[0] != "openai-responses" {
		t.Error("Provider shares its APIs with the catalog")
	}
}
