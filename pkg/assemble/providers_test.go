package assemble

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"gopi/pkg/ai"
)

// A declared provider of the wrong shape is named by its path in the
// user's settings, never by a Go type it is decoded through.
func TestProvidersNameAWrongTypeByItsPath(t *testing.T) {
	for _, c := range []struct{ json, field, value string }{
		{`{"local": {"api": 5}}`, "providers.local.api", "number"},
		{`{"local": {"quirks": {"systemRole": true}}}`, "providers.local.quirks.systemRole", "bool"},
		{`{"local": {"models": [{"id": "a"}, {"id": 3}]}}`, "providers.local.models[1].id", "number"},
		{`{"local": {"models": [{"id": "a", "cost": {"input": "x"}}]}}`, "providers.local.models[0].cost.input", "string"},
		{`{"local": {"models": [{"id": "a", "reasoning": "yes"}]}}`, "providers.local.models[0].reasoning", "string"},
		{`{"local": {"models": [7]}}`, "providers.local.models[0]", "number"},
		{`{"local": {"models": 3}}`, "providers.local.models", "number"},
		{`{"local": "x"}`, "providers.local", "string"},
		{`["x"]`, "providers", "array"},
		{`{"plain": {"api": 1}, "b": {"api": 2}}`, "providers.b.api", "number"}, // the first name said; a provider may be called plain
	} {
		var ps Providers
		err := json.Unmarshal([]byte(c.json), &ps)
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) || te.Field != c.field || te.Value != c.value || te.Struct != "" {
			t.Errorf("%s: %v, want the field %q (a %s)", c.json, err, c.field, c.value)
		}
	}
	var ps Providers
	if err := json.Unmarshal([]byte(`{"local": {"api": "openai"`), &ps); err == nil {
		t.Error("a cut document was read")
	}
}

// Both shapes of a declared model are read: gopi's and pi's models.json.
func TestProvidersReadGopisAndPisModels(t *testing.T) {
	var ps Providers
	err := json.Unmarshal([]byte(`{"local": {"api": "openai", "baseUrl": "http://h/v1", "models": [
		{"id": "pi", "cost": {"input": 1, "output": 2}, "maxTokens": 100, "reasoning": false},
		{"id": "gopi", "prices": {"input": 3}, "cost": {"input": 9}, "maxOutputTokens": 50, "maxTokens": 9, "reasoning": true}]}}`), &ps)
	if err != nil {
		t.Fatal(err)
	}
	p := ps["local"]
	if len(ps) != 1 || p.API != "openai" || p.BaseURL != "http://h/v1" || len(p.Models) != 2 {
		t.Fatalf("%+v", ps)
	}
	pi, gopi := p.Models[0], p.Models[1]
	if pi.Prices.Input != 1 || pi.Prices.Output != 2 || pi.MaxOutputTokens != 100 || pi.Reasoning {
		t.Errorf("pi's shape: %+v", pi)
	}
	if gopi.Prices.Input != 3 || gopi.MaxOutputTokens != 50 || !gopi.Reasoning {
		t.Errorf("gopi's shape: %+v", gopi)
	}
	// "reasoning": false says more than leaving it out.
	if got := p.Describe(ai.Info{ID: "pi", Reasoning: true}, pi); got.Reasoning {
		t.Error("a model declared without reasoning got the catalog's")
	}
	if got := p.Describe(ai.Info{ID: "gopi", Reasoning: true}, ai.Info{ID: "gopi"}); !got.Reasoning {
		t.Error("a model declared with reasoning lost it")
	}
}

// Several declared providers are offered in the order of their names,
// each one's models as declared, every time.
func TestModelCandidatesOfSeveralProvidersInNameOrder(t *testing.T) {
	declared := map[string]Provider{}
	for _, name := range []string{"zeta", "alpha", "mid", "beta", "omega", "kappa"} {
		declared[name] = Provider{API: "openai", Models: []ai.Info{{ID: name + "-2"}, {ID: name + "-1"}}}
	}
	want := []string{"alpha/alpha-2", "alpha/alpha-1", "beta/beta-2", "beta/beta-1", "kappa/kappa-2", "kappa/kappa-1",
		"mid/mid-2", "mid/mid-1", "omega/omega-2", "omega/omega-1", "zeta/zeta-2", "zeta/zeta-1"}
	for range 20 {
		var got []string
		for _, c := range ModelCandidates(declared, "") {
			got = append(got, c.Value)
		}
		got = got[len(got)-len(want):] // the catalog's come first
		if !slices.Equal(got, want) {
			t.Fatalf("order %q, want %q", got, want)
		}
	}
}
