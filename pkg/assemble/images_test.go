package assemble_test

import (
	"testing"

	"gopi/pkg/assemble"
)

// Which models take images, as a run describes them to its Runtime
// (which leaves images out of the requests of a model that takes none):
// the catalog's word, the settings' ("images" declared, false too, over
// the catalog's), the scripted model's (it answers anything), and for a
// model nobody describes, yes: gopi cannot tell, so images are sent as
// given and never silently left out.
func TestWhichModelsTakeImages(t *testing.T) {
	provs := declaredProviders(t, `{
	 "local": {"api": "openai", "baseUrl": "http://127.0.0.1:1/v1", "models": [
	   {"id": "qwen"}, {"id": "qwen-vl", "images": true}, {"id": "gpt-4o", "images": false}, {"id": "gpt-4.1"}]},
	 "openai": {"models": [{"id": "o3-mini", "images": true}]}}`)
	both := modelEnv("ANTHROPIC_API_KEY=sk-a-0123456789", "OPENAI_API_KEY=sk-o-0123456789")
	for _, tc := range []struct {
		what   string
		m      assemble.ModelSettings
		images bool
	}{
		{"the catalog's text-only model", assemble.ModelSettings{Provider: "openai", ID: "o3-mini"}, false},
		{"the catalog's model taking images", assemble.ModelSettings{Provider: "openai", ID: "gpt-4.1"}, true},
		{"a model the catalog does not know", assemble.ModelSettings{Provider: "anthropic", ID: "claude-next"}, true},
		{"declared without images", assemble.ModelSettings{Provider: "local", ID: "qwen", Providers: provs}, false},
		{"declared with images", assemble.ModelSettings{Provider: "local", ID: "qwen-vl", Providers: provs}, true},
		{"declared images false over the catalog's", assemble.ModelSettings{Provider: "local", ID: "gpt-4o", Providers: provs}, false},
		{"declared, the catalog's images kept", assemble.ModelSettings{Provider: "local", ID: "gpt-4.1", Providers: provs}, true},
		{"declared under a built-in provider", assemble.ModelSettings{Provider: "openai", ID: "o3-mini", Providers: provs}, true},
		{"not declared for a declared provider", assemble.ModelSettings{Provider: "local", ID: "mystery", Providers: provs}, true},
		{"the scripted model", assemble.ModelSettings{Provider: "faux"}, true},
	} {
		if ch := choose(t, both, tc.m); ch.Info.Images != tc.images {
			t.Errorf("%s (%s/%s): images %v, want %v", tc.what, ch.Info.Provider, ch.Info.ID, ch.Info.Images, tc.images)
		}
	}
}
