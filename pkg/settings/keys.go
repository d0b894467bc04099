package settings

import (
	"encoding/json"
	"fmt"
	"gopi/internal/nearest"
	"io"
	"slices"
	"sort"
	"strings"
)

// otherSettingsKeys are the top-level keys of settings.json read apart
// from settingTypes and settingsKeys: "$schema" names the file's JSON
// Schema (docs/schema/settings.schema.json) for editors.
var otherSettingsKeys = []string{"$schema", "hooks", "customTools", "mcpServers"}

// providerKeys are the keys of a provider declared under "providers";
// declaredModelKeys those of one of its "models" (cost, maxTokens and
// input are pi's models.json names of prices, maxOutputTokens and images).
var (
	providerKeys      = []string{"api", "baseUrl", "apiKeyEnv", "models", "quirks"}
	declaredModelKeys = []string{"id", "name", "contextWindow", "maxOutputTokens", "prices", "reasoning", "images", "cost", "maxTokens", "input"}
)

// knownSettingsKeys are the top-level keys the settings reader takes,
// sorted.
func knownSettingsKeys() []string {
	seen := map[string]bool{}
	for k := range settingTypes {
		seen[k] = true
	}
	for _, k := range Keys {
		seen[k.Name] = true
	}
	for _, k := range otherSettingsKeys {
		seen[k] = true
	}
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// unknownKeys names the keys of one settings file that gopi does not read
// (at the top level and in declared providers and their models), each with
// a "did you mean" when a known key is close. Keys are matched without
// regard to case, as settings are read.
func unknownKeys(obj map[string]json.RawMessage) []string {
	var out []string
	for _, k := range sortedKeys(obj) {
		if !containsFold(knownSettingsKeys(), k) {
			out = append(out, unknownKey(k, k, knownSettingsKeys()))
			continue
		}
		if strings.EqualFold(k, "providers") {
			out = append(out, unknownProviderKeys(obj[k])...)
		}
	}
	return out
}

func unknownProviderKeys(raw json.RawMessage) []string {
	var providers map[string]map[string]json.RawMessage
	if json.Unmarshal(raw, &providers) != nil {
		return nil // a wrong shape is said when the providers are read
	}
	var out []string
	for _, name := range sortedKeys(providers) {
		p := providers[name]
		for _, k := range sortedKeys(p) {
			path := fmt.Sprintf("providers.%s.%s", name, k)
			if !containsFold(providerKeys, k) {
				out = append(out, unknownKey(path, k, providerKeys))
				continue
			}
			if !strings.EqualFold(k, "models") {
				continue
			}
			var models []map[string]json.RawMessage
			if json.Unmarshal(p[k], &models) != nil {
				continue
			}
			for i, m := range models {
				for _, mk := range sortedKeys(m) {
					if !containsFold(declaredModelKeys, mk) {
						out = append(out, unknownKey(fmt.Sprintf("%s[%d].%s", path, i, mk), mk, declaredModelKeys))
					}
				}
			}
		}
	}
	return out
}

// unknownKey says that the key at path is not read, with the closest
// known key when one is near.
func unknownKey(path, key string, known []string) string {
	msg := fmt.Sprintf("unknown key %q", path)
	if near := closest(key, known); near != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", near)
	}
	return msg
}

// closest is the known key nearest to key (nearest.Name): a slip of the
// keyboard, or a key cut short.
func closest(key string, known []string) string { return nearest.Name(key, known) }

func containsFold(list []string, s string) bool {
	return slices.ContainsFunc(list, func(k string) bool { return strings.EqualFold(k, s) })
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// warnUnknown writes one line per unknown key of a settings file.
func warnUnknown(w io.Writer, path string, unknown []string) {
	for _, u := range unknown {
		fmt.Fprintf(w, "gopi: warning: settings %s: %s is not a gopi setting and is ignored\n", path, u)
	}
}
