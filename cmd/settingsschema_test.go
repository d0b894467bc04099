package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestSettingsSchemaNamesTheKeysRead holds docs/schema/settings.schema.json
// to the settings reader: the schema names exactly the top-level keys
// read, and the keys of a declared provider and model, so that neither
// can change without the other (the reader warns of any other key).
func TestSettingsSchemaNamesTheKeysRead(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "docs", "schema", "settings.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	type object struct {
		Properties           map[string]json.RawMessage `json:"properties"`
		AdditionalProperties *bool                      `json:"additionalProperties"`
	}
	var schema struct {
		object
		Defs map[string]object `json:"$defs"`
	}
	if err := json.Unmarshal(raw, &schema); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		where string
		obj   object
		read  []string
	}{
		{"top level", schema.object, knownSettingsKeys()},
		{"$defs.provider", schema.Defs["provider"], providerKeys},
		{"$defs.model", schema.Defs["model"], declaredModelKeys},
	} {
		got := sortedKeys(c.obj.Properties)
		want := slices.Sorted(slices.Values(c.read))
		if !slices.Equal(got, want) {
			t.Errorf("%s: the schema names %v, the reader takes %v", c.where, got, want)
		}
		if c.obj.AdditionalProperties == nil || *c.obj.AdditionalProperties {
			t.Errorf("%s: the schema admits other keys; the reader warns of them", c.where)
		}
	}
}
