package settings

import (
	"strings"
	"testing"

	"gopi/pkg/ai"
)

// "provider/id" names the provider when none is set, when it is the one
// set, or when it is a known provider given closer to the run than the
// provider; otherwise the id is kept whole.
func TestSplitModelByRank(t *testing.T) {
	local := `"providers": {"local": {"api": "openai", "models": [{"id": "q"}]}}`
	for _, c := range []struct {
		name, project string
		env           map[string]string
		flags         []string
		prov, id      string
	}{
		{name: "--model over GOPI_PROVIDER", env: map[string]string{"GOPI_PROVIDER": "openai"}, flags: []string{"model=anthropic/claude-x"}, prov: "anthropic", id: "claude-x"},
		{name: "GOPI_MODEL over settings", project: `{"provider": "openai"}`, env: map[string]string{"GOPI_MODEL": "anthropic/x"}, prov: "anthropic", id: "x"},
		{name: "both in settings", project: `{"provider": "openai", "model": "anthropic/x"}`, prov: "openai", id: "anthropic/x"},
		{name: "--provider over GOPI_MODEL", env: map[string]string{"GOPI_MODEL": "anthropic/x"}, flags: []string{"provider=openai"}, prov: "openai", id: "anthropic/x"},
		{name: "faux is known", project: `{"provider": "openai"}`, env: map[string]string{"GOPI_MODEL": "faux/x"}, prov: "faux", id: "x"},
		{name: "a declared provider is known", project: `{"provider": "openai",` + local + `}`, env: map[string]string{"GOPI_MODEL": "local/q"}, prov: "local", id: "q"},
		{name: "a router's id", project: `{"provider": "openai"}`, env: map[string]string{"GOPI_MODEL": "meta/llama"}, prov: "openai", id: "meta/llama"},
		{name: "no provider", env: map[string]string{"GOPI_MODEL": "meta/llama"}, prov: "meta", id: "llama"},
		{name: "an empty prefix", env: map[string]string{"GOPI_MODEL": "/x"}, prov: "", id: "/x"},
		{name: "a path", env: map[string]string{"GOPI_MODEL": "../x/y"}, prov: "", id: "../x/y"},
		{name: "a Windows path", env: map[string]string{"GOPI_MODEL": `c:\x/y`}, prov: "", id: `c:\x/y`},
		{name: "no slash", env: map[string]string{"GOPI_PROVIDER": "openai", "GOPI_MODEL": "gpt-x"}, prov: "openai", id: "gpt-x"},
	} {
		p := newPlace(t, "", c.project)
		p.env = c.env
		m, err := p.load(t, runFlags(c.flags...), false).Model("")
		if err != nil || m.Provider != c.prov || m.ID != c.id {
			t.Errorf("%s: %q %q %v, want %q %q", c.name, m.Provider, m.ID, err, c.prov, c.id)
		}
	}
}

// Model gives the key, the address, the declared providers, the
// thinking level after a colon, retry and quirks.
func TestModel(t *testing.T) {
	p := newPlace(t, `{"retry": {"maxAttempts": 4}}`, `{"provider": "local", "model": "q:high", "baseUrl": "https://example.com/v1",
		"providers": {"local": {"api": "openai", "models": [{"id": "q"}]}}, "quirks": {"systemRole": "developer"}}`)
	m, err := p.load(t, runFlags(), false).Model("sk-1")
	if err != nil {
		t.Fatal(err)
	}
	if m.Provider != "local" || m.ID != "q" || m.Thinking != ai.ThinkingHigh || m.APIKey != "sk-1" || m.BaseURL != "https://example.com/v1" ||
		m.Providers["local"].API != "openai" || m.Retry.MaxAttempts != 4 || m.Retry.Quirks.SystemRole == nil || *m.Retry.Quirks.SystemRole != "developer" {
		t.Errorf("model %+v", m)
	}
	empty := newPlace(t, "", "")
	m, err = empty.load(t, runFlags(), false).Model("")
	if err != nil || m.Provider != "" || m.ID != "" || m.Thinking != "" || len(m.Providers) != 0 || m.Retry.MaxAttempts != 0 {
		t.Errorf("nothing set: %+v %v", m, err)
	}
}

func TestModelRefusals(t *testing.T) {
	local := `"providers": {"local": {"api": "openai", "models": [{"id": "q"}]}}`
	for _, c := range []struct {
		name, project string
		env           map[string]string
		want          string
	}{
		{name: "base URL", env: map[string]string{"GOPI_BASE_URL": "ftp://x"},
			want: `GOPI_BASE_URL "ftp://x" is no API address: give it with http:// or https://, such as http://localhost:8080/v1`},
		{name: "thinking level", project: `{` + local + `}`, env: map[string]string{"GOPI_MODEL": "local/q:hgih"},
			want: `GOPI_MODEL "q:hgih": unknown thinking level "hgih" after the colon: use off, minimal, low, medium, high or xhigh`},
		{name: "retry's shape", project: `{"retry": {"maxAttempts": "x"}}`,
			want: `"retry" in FILE has the wrong shape: "maxAttempts" is a string: give a whole number`},
		{name: "a negative retry", project: `{"retry": {"maxAttempts": -1}}`,
			want: `"retry" in FILE: retry.maxAttempts is -1: give 0 or more (0 or leaving it out means the default)`},
		{name: "quirks' shape", project: `{"quirks": {"systemRole": 1}}`,
			want: `"quirks" in FILE has the wrong shape: "systemRole" is a number: give a string`},
	} {
		p := newPlace(t, "", c.project)
		p.env = c.env
		s := p.load(t, runFlags(), false)
		_, err := s.Model("")
		usage(t, c.name, err, strings.ReplaceAll(c.want, "FILE", p.projectFile))
		// Assembly refuses it too, after the run's values.
		_, err = s.Assembly(AgentOptions{Cwd: p.cwd})
		usage(t, c.name+" in Assembly", err, strings.ReplaceAll(c.want, "FILE", p.projectFile))
	}
}

// A declared provider of the wrong shape is refused naming the file and
// the value's path in it (not a Go type it is decoded through), and
// what to give instead.
func TestProvidersShape(t *testing.T) {
	for body, want := range map[string]string{
		`{"providers": {"local": {"api": 5}}}`:                           `"providers.local.api" is a number: give a string`,
		`{"providers": {"local": {"models": [{"id": "a"}, {"id": 3}]}}}`: `"providers.local.models[1].id" is a number: give a string`,
		`{"providers": {"local": {"quirks": {"systemRole": true}}}}`:     `"providers.local.quirks.systemRole" is true or false: give a string`,
	} {
		p := newPlace(t, "", body)
		_, err := p.load(t, runFlags(), false).Model("")
		if want = `"providers" in ` + p.projectFile + ` has the wrong shape: ` + want; err == nil || err.Error() != want {
			t.Errorf("%s: error %v, want %s", body, err, want)
		}
	}
}

// DeclaredProviders are none for a wrong shape and for no settings.
func TestDeclaredProviders(t *testing.T) {
	var none *Settings
	if got := none.DeclaredProviders(); got == nil || len(got) != 0 {
		t.Errorf("no settings: %v", got)
	}
	p := newPlace(t, "", `{"providers": {"local": {"api": 5}}}`)
	if got := p.load(t, runFlags(), false).DeclaredProviders(); len(got) != 0 {
		t.Errorf("a wrong shape: %v", got)
	}
}
