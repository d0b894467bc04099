package cmd

import (
	"encoding/csv"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

// layers holds one invocation's settings by precedence, as viper held
// them before (gopi used a small part of it, and importing it cost every
// run a fifth of its start-up): values set (flags given, the
// environment) > settings files merged > a bound flag's default. Keys
// are case-insensitive; the keys of objects from settings files are
// lower-cased at every depth, and objects merge key by key across files.
type layers struct {
	override map[string]any         // Set, by lower-case key
	config   map[string]any         // the settings files, merged
	pflags   map[string]*pflag.Flag // BindPFlag, by lower-case key
}

func newLayers() *layers {
	return &layers{override: map[string]any{}, config: map[string]any{}, pflags: map[string]*pflag.Flag{}}
}

// BindPFlag makes flag's value the key's, when it is given, and its
// default the key's when nothing else sets the key.
func (l *layers) BindPFlag(key string, flag *pflag.Flag) error {
	l.pflags[strings.ToLower(key)] = flag
	return nil
}

// Set gives key a value above every other source.
func (l *layers) Set(key string, value any) {
	l.override[strings.ToLower(key)] = lowerKeys(value)
}

// Get returns key's value from the highest source that has one, or nil.
func (l *layers) Get(key string) any { return l.find(strings.ToLower(key), true) }

// IsSet reports whether key has a value other than a flag's default.
func (l *layers) IsSet(key string) bool { return l.find(strings.ToLower(key), false) != nil }

// InConfig reports whether a settings file gave key a value.
func (l *layers) InConfig(key string) bool { return l.config[strings.ToLower(key)] != nil }

// GetString returns key's value as text: a string as it is, a number in
// decimal, a boolean as true or false, anything else empty.
func (l *layers) GetString(key string) string {
	switch v := l.Get(key).(type) {
	case string:
		return v
	case bool:
		return strconv.FormatBool(v)
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case int:
		return strconv.Itoa(v)
	}
	return ""
}

// MergeConfigMap merges one settings file's values: an object into the
// object of the same key, any other value in place of the old one. A
// file's non-object value for a key whose value is an object is dropped.
func (l *layers) MergeConfigMap(cfg map[string]any) error {
	lowerMap(cfg)
	mergeMaps(cfg, l.config)
	return nil
}

func (l *layers) find(key string, flagDefault bool) any {
	if v := l.override[key]; v != nil {
		return v
	}
	flag, bound := l.pflags[key]
	if bound && flag.Changed {
		return flagTyped(flag)
	}
	if v := l.config[key]; v != nil {
		return v
	}
	if bound && flagDefault {
		return flagTyped(flag)
	}
	return nil
}

// flagTyped is a flag's value typed by its kind: a number, a boolean, a
// list, or else its text.
func flagTyped(f *pflag.Flag) any {
	s := f.Value.String()
	switch f.Value.Type() {
	case "int", "int8", "int16", "int32", "int64":
		n, _ := strconv.ParseInt(s, 0, 0)
		return int(n)
	case "bool":
		b, _ := strconv.ParseBool(s)
		return b
	case "stringSlice", "stringArray":
		s = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
		if s == "" {
			return []string{}
		}
		list, _ := csv.NewReader(strings.NewReader(s)).Read()
		return list
	}
	return s
}

// lowerKeys lower-cases the keys of an object value, at every depth.
func lowerKeys(v any) any {
	switch t := v.(type) {
	case map[string]any:
		lowerMap(t)
	case []any:
		for i, x := range t {
			t[i] = lowerKeys(x)
		}
	}
	return v
}

func lowerMap(m map[string]any) {
	for k, v := range m {
		v = lowerKeys(v)
		lower := strings.ToLower(k)
		if k != lower {
			delete(m, k)
		}
		m[lower] = v
	}
}

// mergeMaps merges src into tgt (both with lower-case keys).
func mergeMaps(src, tgt map[string]any) {
	for k, sv := range src {
		tv, ok := tgt[k]
		if !ok {
			tgt[k] = sv
			continue
		}
		if tm, isMap := tv.(map[string]any); isMap {
			if sm, ok := sv.(map[string]any); ok {
				mergeMaps(sm, tm)
			}
			continue
		}
		tgt[k] = sv
	}
}
