package assemble_test

import (
	"bytes"
	"testing"

	"gopi/internal/fdcheck"
	"gopi/pkg/ai"
	"gopi/pkg/ai/catalog"
	"gopi/pkg/assemble"
)

// The models a switch offers: the one in use first, once, then its
// provider's catalog models at its address, then every declared model;
// not another built-in provider's catalog.
func TestModelsOffered(t *testing.T) {
	fdcheck.Check(t)
	var stderr bytes.Buffer
	s := settings(t)
	s.Session.None = true
	s.Model = assemble.ModelSettings{Provider: "openai", ID: "gpt-4.1", BaseURL: "http://127.0.0.1:1/v1",
		Providers: map[string]assemble.Provider{"local": {API: "openai", BaseURL: "http://127.0.0.1:2/v1", Models: []ai.Info{{ID: "qwen"}}}}}
	a, err := assemble.Build(s, env(&stderr))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	defer dispose(t, a)
	models := a.Models()
	if models[0].Provider != "openai" || models[0].ID != "gpt-4.1" {
		t.Fatalf("first %+v", models[0])
	}
	seen := map[string]int{}
	for _, m := range models {
		seen[m.Provider+"/"+m.ID]++
		if m.Provider == "openai" && m.BaseURL != "http://127.0.0.1:1/v1" {
			t.Errorf("%s at %q, want the address in use", m.ID, m.BaseURL)
		}
		if m.Provider == "anthropic" {
			t.Errorf("another provider's catalog: %s", m.ID)
		}
		if m.Provider == "local" && m.BaseURL == "http://127.0.0.1:1/v1" {
			t.Errorf("a declared model at the address of the model in use: %+v", m)
		}
	}
	if seen["openai/gpt-4.1"] != 1 || seen["local/qwen"] != 1 || len(seen) != len(models) {
		t.Errorf("offered %v", seen)
	}
	if n := len(catalog.ForProvider("openai")); len(models) != n+1 {
		t.Errorf("%d models, want the %d of openai's catalog and qwen", len(models), n)
	}
}

// A model declared under a built-in provider's name takes the catalog's
// row of its id, its own fields winning; under another name, its api's.
func TestDeclaredInfo(t *testing.T) {
	cat, _ := catalog.Resolve("anthropic", "claude-sonnet-4-5")
	got := assemble.DeclaredInfo("anthropic", assemble.Provider{}, ai.Info{ID: "claude-sonnet-4-5", ContextWindow: 1000})
	if got.ContextWindow != 1000 || got.Prices != cat.Prices || got.API != cat.API || got.Provider != "anthropic" {
		t.Errorf("built-in: %+v", got)
	}
	got = assemble.DeclaredInfo("proxy", assemble.Provider{API: "openai-responses"}, ai.Info{ID: "gpt-4.1"})
	want, _ := catalog.Resolve("openai", "gpt-4.1")
	if got.API != "openai-responses" || got.Provider != "proxy" || got.Prices != want.Prices || got.ContextWindow != want.ContextWindow {
		t.Errorf("declared: %+v", got)
	}
	gpt, _ := catalog.Resolve("openai", "gpt-4.1")
	got = assemble.DeclaredInfo("openai", assemble.Provider{}, ai.Info{ID: "gpt-4.1", MaxOutputTokens: 5})
	if got.MaxOutputTokens != 5 || got.Prices != gpt.Prices || got.API != gpt.API || got.Provider != "openai" {
		t.Errorf("built-in openai: %+v", got)
	}
	got = assemble.DeclaredInfo("openai", assemble.Provider{API: "anthropic"}, ai.Info{ID: "claude-sonnet-4-5"})
	if got.API != "anthropic" || got.Prices != cat.Prices {
		t.Errorf("openai's name with an api of its own: %+v", got)
	}
}
