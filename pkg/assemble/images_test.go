package assemble_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/ai/faux"
	"gopi/pkg/assemble"
	"gopi/pkg/assemble/assembletest"
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

// The read tool of an assembled Runtime asks for the model in use when
// it runs: after a switch to a model that takes no images, reading an
// image says so in the result's details (the image stays in the result
// and the session) and the model is sent a text in its place.
func TestReadSeesTheModelSwitchedTo(t *testing.T) {
	s := assembletest.Settings(t, `[{"text":"unused"}]`)
	s.Tools = []string{"read"}
	if err := os.WriteFile(filepath.Join(s.Cwd, "a.png"), []byte("\x89PNG\r\n\x1a\n\x00\x00rest"), 0o600); err != nil {
		t.Fatal(err)
	}
	a := assembletest.Open(t, s)
	blind := ai.Info{ID: "blind", Provider: "faux", API: "faux", ContextWindow: 100_000}
	m := faux.New(faux.Call("read", `{"path":"a.png"}`), faux.Text("seen")).WithInfo(blind)
	if err := a.Runtime().SetModel(m, blind, ""); err != nil {
		t.Fatal(err)
	}
	res, err := a.Runtime().Prompt(context.Background(), ai.UserText("look at a.png", 1))
	if err != nil || res.Err != nil {
		t.Fatalf("run: %v / %v", err, res.Err)
	}
	result := res.Messages[2]
	if result.Role != ai.RoleToolResult || string(result.Details) != `{"imageUnsupportedByModel":"blind"}` ||
		len(result.Content) != 2 || result.Content[1].Type != ai.TypeImage {
		t.Fatalf("the read result is %s %+v with details %s, want the image and imageUnsupportedByModel blind", result.Role, result.Content, result.Details)
	}
	sent := m.Requests()[1].Messages[2].Content
	if len(sent) != 2 || sent[1].Text != ai.ToolImageOmitted {
		t.Fatalf("the model was sent %+v, want the tool's image left out", sent)
	}
}
