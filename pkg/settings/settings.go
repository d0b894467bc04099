package settings

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/viper"

	"gopi/pkg/assemble"
	"gopi/pkg/extension"
	"gopi/pkg/resources"
)

// Key is a key of settings.json that has a flag, and a GOPI_ variable:
// GOPI_ followed by the flag name in capitals.
type Key struct{ Name, Flag, Env string }

// Keys are the keys of settings.json that have a flag.
var Keys = []Key{
	{"provider", "provider", "GOPI_PROVIDER"},
	{"model", "model", "GOPI_MODEL"},
	{"baseUrl", "base-url", "GOPI_BASE_URL"},
	{"thinking", "thinking", "GOPI_THINKING"},
	{"maxSteps", "max-steps", "GOPI_MAX_STEPS"},
	{"maxTokens", "max-tokens", "GOPI_MAX_TOKENS"},
	{"tools", "tools", "GOPI_TOOLS"},
	{"timeout", "timeout", "GOPI_TIMEOUT"},
	{"systemPrompt", "system-prompt", "GOPI_SYSTEM_PROMPT"},
	{"appendSystemPrompt", "append-system-prompt", "GOPI_APPEND_SYSTEM_PROMPT"},
	{"fsync", "fsync", "GOPI_FSYNC"},
	{"maxPromptBytes", "max-prompt-bytes", "GOPI_MAX_PROMPT_BYTES"},
	{"maxBudgetTokens", "max-budget-tokens", "GOPI_MAX_BUDGET_TOKENS"},
	{"maxBudgetUsd", "max-budget-usd", "GOPI_MAX_BUDGET_USD"},
	{"sessionDir", "session-dir", "GOPI_SESSION_DIR"},
}

// flagOf is the flag of a key ("" for a key without one).
func flagOf(key string) string {
	for _, k := range Keys {
		if k.Name == key {
			return k.Flag
		}
	}
	return ""
}

// Flags are the command's flags, as viper reads them: Lookup is nil for
// a flag the command does not have. Only the flags read are looked up.
type Flags interface {
	Lookup(name string) viper.FlagValue
}

// Options say what one Load reads.
type Options struct {
	// Home is $GOPI_HOME (its settings.json is the user's).
	Home string
	// Cwd is the run's working folder; the project's settings files are
	// found from it up to the repository root.
	Cwd string
	// Bare reads no settings file.
	Bare bool
	// Flags are the command's flags (nil: none).
	Flags Flags
	// Getenv reads the process's environment (the GOPI_* variables).
	Getenv func(string) string
	// Stderr gets a warning for each key of a settings file gopi does
	// not read, the first time Said lets it.
	Stderr io.Writer
	// Said remembers the files whose unknown keys were named in this
	// invocation (nil: a new memory).
	Said *Said
}

// Settings are one invocation's settings, from every source: flags >
// environment > project settings files (the nearest folder's first) >
// the global settings file > defaults.
type Settings struct {
	v      *viper.Viper
	home   string
	getenv func(string) string
	files  []string // settings files read, in merge order: global first, then the project's from its root down
	// setBy names, for each key (lower case, as viper keeps them), the
	// settings files its value came from: the last one for a plain value,
	// every one for an object merged across files.
	setBy map[string][]string
	flags Flags             // the command's flags
	env   map[string]string // key → the GOPI_ variable that set it
	// hooks are the "hooks" of every settings file, in merge order: they
	// add up instead of a nearer file's replacing a farther one's.
	hooks extension.HooksConfig
	// secrets are the "secrets" of every settings file.
	secrets []string
	// customTools are the "customTools" of every settings file, a nearer
	// file's replacing a farther one's of the same name.
	customTools []customTool
	// toolLayers are the "tools" values of the settings files, in merge
	// order (Tools resolves them).
	toolLayers []toolLayer
	// mcpLayers are the "mcpServers" of the settings files (readMCP).
	mcpLayers []mcpLayer
	stderr    io.Writer
	said      *Said
}

// Load reads the settings files (none when bare) and binds the flags and
// the GOPI_* variables of Keys, on one new viper instance.
func Load(o Options) (*Settings, error) {
	if o.Said == nil {
		o.Said = &Said{}
	}
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
	if o.Getenv == nil {
		o.Getenv = func(string) string { return "" }
	}
	if o.Flags == nil {
		o.Flags = noFlags{}
	}
	s := &Settings{v: viper.New(), home: o.Home, getenv: o.Getenv, setBy: map[string][]string{},
		flags: o.Flags, env: map[string]string{}, stderr: o.Stderr, said: o.Said}
	if !o.Bare {
		for _, f := range Files(o.Home, o.Cwd) {
			if err := s.merge(f); err != nil {
				return nil, err
			}
		}
	}
	for _, k := range Keys {
		f := s.flags.Lookup(k.Flag)
		if f != nil {
			if err := s.v.BindFlagValue(k.Name, f); err != nil {
				return nil, fmt.Errorf("bind flag %s: %w", k.Flag, err)
			}
		}
		if val := o.Getenv(k.Env); val != "" && (f == nil || !f.HasChanged()) {
			s.v.Set(k.Name, val) // the environment outranks settings files, a flag given outranks it
			s.env[k.Name] = k.Env
		}
	}
	return s, nil
}

// Files are the settings files one invocation may read, in the order they
// are merged, a later one overriding an earlier one key by key:
// $GOPI_HOME's, then each project folder's .gopi/settings.json from the
// repository root down to the working directory (the folders
// resources.ProjectRoots finds for skills and templates), so a project's
// settings, hooks among them, apply wherever in it gopi starts.
func Files(home, cwd string) []string {
	files := []string{filepath.Join(home, "settings.json")}
	roots := resources.ProjectRoots(nil, cwd)
	for i := len(roots) - 1; i >= 0; i-- {
		dir := filepath.Join(roots[i], resources.ProjectDir)
		if dir == home { // ~/.gopi is $GOPI_HOME, read above as the user's
			continue
		}
		files = append(files, filepath.Join(dir, "settings.json"))
	}
	return files
}

// HookDir is where the hooks a settings file declares run: a project's
// hooks in the project folder that holds its .gopi (so "./policy.sh" is
// found from any subfolder), $GOPI_HOME's in the working directory ("").
func HookDir(home, settings string) string {
	dir := filepath.Dir(settings)
	if dir == home {
		return ""
	}
	return filepath.Dir(dir)
}

// merge reads one settings file; a missing file is fine, a malformed
// one is a usage error naming it. It is read as every resource is: a
// regular file of at most resources.MaxFileSize, never a blocking open.
func (s *Settings) merge(path string) error {
	data, err := resources.ReadFile(nil, path, resources.MaxFileSize)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if errors.Is(err, resources.ErrRefused) {
		return assemble.Usagef("settings %s %v: make it a regular file of at most 1 MiB, or remove it", path, err)
	}
	if err != nil {
		return assemble.Usagef("read settings %s: %v", path, err)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		return assemble.Usagef("settings %s is %s; fix or remove it", path, JSONProblem(data, err))
	}
	if s.said.First(path) {
		warnUnknown(s.stderr, path, unknownKeys(obj))
	}
	if err := s.takeApart(path, obj); err != nil {
		return err
	}
	values := toAny(obj)
	if err := checkTypes(path, values); err != nil {
		return err
	}
	s.mergeSecrets(values)
	s.takeToolLayer(path, values)
	s.recordOrigins(path, values)
	if err := s.v.MergeConfigMap(values); err != nil {
		return assemble.Usagef("settings %s: %v", path, err)
	}
	s.files = append(s.files, path)
	return nil
}

// recordOrigins notes path as the origin of each key of one file: the
// only one of a plain value, one more of an object merged with another.
func (s *Settings) recordOrigins(path string, values map[string]any) {
	for k, val := range values {
		k = strings.ToLower(k)
		_, isMap := val.(map[string]any)
		_, wasMap := s.v.Get(k).(map[string]any) // no flag is bound yet
		if !isMap || !wasMap {
			s.setBy[k] = nil // replaced, not merged
		}
		s.setBy[k] = append(s.setBy[k], path)
	}
}

// takeApart takes the keys that are not plain settings out of one file:
// "hooks" (they add up), "customTools" and "mcpServers" (by name).
func (s *Settings) takeApart(path string, obj map[string]json.RawMessage) error {
	if raw, ok := obj["hooks"]; ok {
		var h extension.HooksConfig
		if err := json.Unmarshal(raw, &h); err != nil {
			return assemble.Usagef("settings %s: \"hooks\" has the wrong shape: %s", path, JSONProblem(raw, err))
		}
		h.SetDir(HookDir(s.home, path))
		s.hooks.BeforeTool = append(s.hooks.BeforeTool, h.BeforeTool...)
		s.hooks.AfterTool = append(s.hooks.AfterTool, h.AfterTool...)
		delete(obj, "hooks")
	}
	if raw, ok := obj["customTools"]; ok {
		if err := s.mergeCustomTools(path, raw); err != nil {
			return err
		}
		delete(obj, "customTools")
	}
	if raw, ok := obj["mcpServers"]; ok {
		s.mcpLayers = append(s.mcpLayers, mcpLayer{path: path, raw: raw})
		delete(obj, "mcpServers")
	}
	return nil
}

func toAny(obj map[string]json.RawMessage) map[string]any {
	out := map[string]any{}
	for k, raw := range obj {
		var v any
		_ = json.Unmarshal(raw, &v)
		out[k] = v
	}
	return out
}

// Home is $GOPI_HOME.
func (s *Settings) Home() string { return s.home }

// Files are the settings files read, in merge order.
func (s *Settings) Files() []string { return s.files }

// Hooks are the "hooks" of every settings file, in merge order.
func (s *Settings) Hooks() extension.HooksConfig { return s.hooks }

// Secrets are the variable names of every settings file's "secrets",
// and those AddSecret added.
func (s *Settings) Secrets() []string { return s.secrets }

// String reads a text setting; from a file it is a string or, for the
// keys that take one, a number in decimal (checkTypes let no other type
// in).
func (s *Settings) String(key string) string { return s.v.GetString(key) }

// Integer reads a whole-number setting strictly ("1.5" is an error).
func (s *Settings) Integer(key string) (int, error) {
	raw := strings.TrimSpace(s.String(key))
	if raw == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil {
		return 0, assemble.Usagef("%s %q: give a whole number", s.Origin(key), raw)
	}
	return n, nil
}

// List reads a comma-separated or JSON-array setting (checkTypes let no
// other type in from a file; flags and the environment give strings).
func (s *Settings) List(key string) []string {
	var out []string
	switch t := s.v.Get(key).(type) {
	case []any:
		for _, x := range t {
			out = append(out, fmt.Sprint(x))
		}
	case []string:
		out = t
	case string:
		for _, e := range strings.Split(t, ",") {
			if e = strings.TrimSpace(e); e != "" {
				out = append(out, e)
			}
		}
	}
	return out
}

// Decode reads a structured setting (providers, retry, compaction) into
// dst; its wrong shape is a usage error naming where it came from.
func (s *Settings) Decode(key string, dst any) error {
	raw := s.v.Get(key)
	if raw == nil {
		return nil
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return assemble.Usagef("%s: %v", s.Origin(key), err)
	}
	if err := json.Unmarshal(b, dst); err != nil {
		return assemble.Usagef("%s has the wrong shape: %s", s.Origin(key), JSONProblem(b, err))
	}
	return nil
}

// given is the flag of that name when the user gave it.
func (s *Settings) given(name string) viper.FlagValue {
	if f := s.flags.Lookup(name); f != nil && f.HasChanged() {
		return f
	}
	return nil
}

// HasFlag reports whether the command has a flag of that name.
func (s *Settings) HasFlag(name string) bool { return s.flags.Lookup(name) != nil }

// noFlags is a command without flags.
type noFlags struct{}

func (noFlags) Lookup(string) viper.FlagValue { return nil }
