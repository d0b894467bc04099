package settings

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// TestSettingsSchemaNamesTheKeysRead holds docs/schema/settings.schema.json
// to the settings reader: the schema names exactly the top-level keys
// read, and the keys of a declared provider and model, so that neither
// can change without the other (the reader warns of any other key).
func TestSettingsSchemaNamesTheKeysRead(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "schema", "settings.schema.json"))
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

// The schema is a JSON Schema that takes the settings the README shows and
// refuses the mistakes the reader refuses or warns of.
func TestSettingsSchemaValidates(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "schema", "settings.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	sch, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		doc string
		ok  bool
	}{
		{`{"provider": "local", "providers": {"local": {"api": "openai", "baseUrl": "http://localhost:8080/v1", "apiKeyEnv": "LOCAL_KEY", "models": [{"id": "qwen", "contextWindow": 32768}]}}}`, true},
		{`{"providers": {"anthropic": {"models": [{"id": "my-finetune", "contextWindow": 200000, "prices": {"input": 3, "output": 15}, "reasoning": true}]}}}`, true},
		{`{"providers": {"local": {"api": "openai", "models": [{"id": "q", "maxTokens": 8192, "cost": {"input": 0.4, "output": 1.6, "cacheRead": 0, "cacheWrite": 0}}]}}}`, true},
		{`{"$schema": "settings.schema.json", "maxSteps": "7", "maxTokens": 100, "tools": "read,bash", "thinking": null, "timeout": "90s"}`, true},
		{`{"tools": ["read", "bash"], "hooks": {"beforeTool": [{"matcher": "bash", "command": "./policy.sh", "timeout": 30}]}}`, true},
		{`{"customTools": [{"name": "t", "command": "true", "parameters": {"type": "object"}}]}`, true},
		{`{"maxStep": 3}`, false},
		{`{"providers": {"local": {"api": "openai", "models": [{"id": "q", "contextWindow": "big"}]}}}`, false},
		{`{"providers": {"local": {"api": "openai", "apiKey": "K"}}}`, false},
		{`{"thinking": "hgih"}`, false},
		{`{"customTools": [{"name": "t", "command": "true", "timeoutMs": 5}]}`, false},
	} {
		var v any
		if err := json.Unmarshal([]byte(c.doc), &v); err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(v); (err == nil) != c.ok {
			t.Errorf("%s: valid %v, want %v (%v)", c.doc, err == nil, c.ok, err)
		}
	}
}
