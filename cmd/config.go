package cmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"gopi/internal/pijson"
	"gopi/pkg/extension"
	"gopi/pkg/resources"
)

// settingsKeys are the keys of settings.json and their flags; a key's
// environment variable is GOPI_ followed by the flag name in capitals.
var settingsKeys = map[string]string{
	"provider":           "provider",
	"model":              "model",
	"baseUrl":            "base-url",
	"thinking":           "thinking",
	"maxSteps":           "max-steps",
	"maxTokens":          "max-tokens",
	"tools":              "tools",
	"timeout":            "timeout",
	"systemPrompt":       "system-prompt",
	"appendSystemPrompt": "append-system-prompt",
	"fsync":              "fsync",
	"maxPromptBytes":     "max-prompt-bytes",
	"maxBudgetTokens":    "max-budget-tokens",
	"maxBudgetUsd":       "max-budget-usd",
	"sessionDir":         "session-dir",
}

// settings are one invocation's settings, from every source: flags >
// environment > project settings files (the nearest folder's first) >
// the global settings file > defaults. (runSettings is their typed read
// for a run; a session's own model and thinking level are
// session.ModelState.)
type settings struct {
	v     *layers
	home  string   // $GOPI_HOME
	files []string // settings files read, in merge order: global first, then the project's from its root down
	// setBy names, for each key (lower case, as layers keeps them), the
	// settings files its value came from: the last one for a plain value,
	// every one for an object merged across files.
	setBy map[string][]string
	flags *pflag.FlagSet
	env   map[string]string // key → the GOPI_ variable that set it
	// hooks are the "hooks" of every settings file, in merge order: they
	// add up instead of a nearer file's replacing a farther one's.
	hooks extension.HooksConfig
	// secrets are the "secrets" of every settings file (toolSecrets).
	secrets []string
	// customTools are the "customTools" of every settings file, a nearer
	// file's replacing a farther one's of the same name.
	customTools []customTool
	// toolLayers are the "tools" values of the settings files, in merge
	// order (toolNames resolves them).
	toolLayers []toolLayer
	// mcpLayers are the "mcpServers" of the settings files (mcp.go).
	mcpLayers []mcpLayer
	// stderr gets a warning for each key of a settings file gopi does
	// not read, the first time said lets it.
	stderr io.Writer
	said   *saidOnce
}

// gopiHome is $GOPI_HOME, or ~/.gopi.
func gopiHome(sys *System) (string, error) {
	if h := sys.getenv("GOPI_HOME"); h != "" {
		return filepath.Abs(h)
	}
	home := sys.getenv("HOME")
	if home == "" {
		return "", usageErr("cannot find the home folder: set HOME or GOPI_HOME")
	}
	return filepath.Join(home, ".gopi"), nil
}

// loadSettings reads the settings files (none when bare) and binds flags
// and the environment.
func loadSettings(sys *System, flags *pflag.FlagSet, cwd string, bare bool) (*settings, error) {
	home, err := gopiHome(sys)
	if err != nil {
		return nil, err
	}
	v := newLayers()
	if sys.settingsSaid == nil { // the first load, before anything runs beside it
		sys.settingsSaid = &saidOnce{}
	}
	c := &settings{v: v, home: home, flags: flags, env: map[string]string{}, setBy: map[string][]string{},
		stderr: sys.Stderr, said: sys.settingsSaid}
	if !bare {
		for _, f := range settingsFiles(home, cwd) {
			if err := c.merge(f); err != nil {
				return nil, err
			}
		}
	}
	for key, flag := range settingsKeys {
		if f := flags.Lookup(flag); f != nil {
			if err := v.BindPFlag(key, f); err != nil {
				return nil, fmt.Errorf("bind flag %s: %w", flag, err)
			}
		}
		name := "GOPI_" + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
		if val := sys.getenv(name); val != "" {
			v.Set(key, val) // environment outranks settings files
			c.env[key] = name
		}
	}
	reapplyChangedFlags(v, flags)
	return c, nil
}

// settingsFiles are the settings files one invocation may read, in the
// order they are merged, a later one overriding an earlier one key by
// key: $GOPI_HOME's, then each project folder's .gopi/settings.json from
// the repository root down to the working directory (the folders
// resources.ProjectRoots finds for skills and templates), so a project's
// settings, hooks among them, apply wherever in it gopi starts.
func settingsFiles(home, cwd string) []string {
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

// hookDir is where the hooks a settings file declares run: a project's
// hooks in the project folder that holds its .gopi (so "./policy.sh" is
// found from any subfolder), $GOPI_HOME's in the working directory ("").
func hookDir(home, settings string) string {
	dir := filepath.Dir(settings)
	if dir == home {
		return ""
	}
	return filepath.Dir(dir)
}

// reapplyChangedFlags makes flags the user gave win over the environment,
// which was set explicitly above.
func reapplyChangedFlags(v *layers, flags *pflag.FlagSet) {
	for key, flag := range settingsKeys {
		if f := flags.Lookup(flag); f != nil && f.Changed {
			v.Set(key, flagValue(f))
		}
	}
}

func flagValue(f *pflag.Flag) any {
	if sv, ok := f.Value.(pflag.SliceValue); ok {
		return sv.GetSlice()
	}
	return f.Value.String()
}

// merge reads one settings file; a missing file is fine, a malformed
// one is a usage error naming it. It is read as every resource is: a
// regular file of at most resources.MaxFileSize, never a blocking open.
func (c *settings) merge(path string) error {
	data, err := resources.ReadFile(nil, path, resources.MaxFileSize)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if errors.Is(err, resources.ErrRefused) {
		return usageErr("settings %s %v: make it a regular file of at most 1 MiB, or remove it", path, err)
	}
	if err != nil {
		return usageErr("read settings %s: %v", path, err)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		return usageErr("settings %s is %s; fix or remove it", path, jsonProblem(data, err))
	}
	if c.said.first(path) {
		warnUnknown(c.stderr, path, unknownKeys(obj))
	}
	if raw, ok := obj["hooks"]; ok {
		var h extension.HooksConfig
		if err := json.Unmarshal(raw, &h); err != nil {
			return usageErr("settings %s: \"hooks\" has the wrong shape: %s", path, jsonProblem(raw, err))
		}
		h.SetDir(hookDir(c.home, path))
		c.hooks.BeforeTool = append(c.hooks.BeforeTool, h.BeforeTool...)
		c.hooks.AfterTool = append(c.hooks.AfterTool, h.AfterTool...)
		delete(obj, "hooks")
	}
	if raw, ok := obj["customTools"]; ok {
		if err := c.mergeCustomTools(path, raw); err != nil {
			return err
		}
		delete(obj, "customTools")
	}
	c.takeMCP(path, obj)
	values := toAny(obj)
	if err := checkTypes(path, values); err != nil {
		return err
	}
	c.mergeSecrets(values)
	c.settingsToolLayer(path, values)
	for k, val := range values {
		k = strings.ToLower(k)
		_, isMap := val.(map[string]any)
		_, wasMap := c.v.Get(k).(map[string]any) // no flag is bound yet
		if !isMap || !wasMap {
			c.setBy[k] = nil // replaced, not merged
		}
		c.setBy[k] = append(c.setBy[k], path)
	}
	if err := c.v.MergeConfigMap(values); err != nil {
		return usageErr("settings %s: %v", path, err)
	}
	c.files = append(c.files, path)
	return nil
}

// settingKind is the JSON type a settings key takes.
type settingKind int

const (
	kindString    settingKind = iota // a JSON string
	kindStringNum                    // a string or a number (read as its decimal text)
	kindList                         // a list of strings, or one comma-separated string
	kindObject                       // a JSON object
)

// settingTypes are the types of the settings gopi reads, and what to say
// when a file gives another: a wrong type is a usage error when the file
// is read, before anything is sent or written, never a value ignored.
// Keys are matched without regard to case, as settings are read.
var settingTypes = map[string]struct {
	kind settingKind
	want string
}{
	"provider":           {kindString, `give a provider name as a string, e.g. "anthropic"`},
	"model":              {kindString, `give a model id as a string, or "provider/id"`},
	"baseUrl":            {kindString, `give the API address as a string`},
	"thinking":           {kindString, `give a string: "off", "minimal", "low", "medium", "high" or "xhigh"`},
	"systemPrompt":       {kindString, `give the prompt text, or the path of a file holding it, as a string`},
	"appendSystemPrompt": {kindString, `give the text, or the path of a file holding it, as a string`},
	"fsync":              {kindString, `give a string: "always" or "never"`},
	"timeout":            {kindStringNum, `give a duration as a string, such as "90s" or "10m"`},
	"maxSteps":           {kindStringNum, `give a whole number above 0`},
	"maxTokens":          {kindStringNum, `give a whole number, 0 for the model's limit`},
	"maxPromptBytes":     {kindStringNum, `give a whole number of bytes above 0, e.g. 10485760`},
	"maxBudgetTokens":    {kindStringNum, `give a whole number of tokens above 0, e.g. 200000`},
	"maxBudgetUsd":       {kindStringNum, `give US dollars above 0, e.g. 0.50`},
	"tools":              {kindList, `give a list of tool names or a comma-separated string, e.g. ["read","bash"] or "read,bash"`},
	"providers":          {kindObject, `give an object of named providers, e.g. {"local": {"api": "openai", ...}}`},
	"retry":              {kindObject, `give an object, e.g. {"maxAttempts": 3}`},
	"quirks":             {kindObject, `give an object, e.g. {"systemRole": "developer"}`},
	"secrets":            {kindList, `give a list of environment variable names, e.g. ["GITHUB_TOKEN"]`},
	"mcp":                {kindObject, `give an object, e.g. {"startTimeout": 30, "timeout": 60}`},
	"compaction":         {kindObject, `give an object, e.g. {"enabled": false} or {"reserveTokens": 16384, "keepRecentTokens": 20000}`},
	"sandbox":            {kindObject, `give an object, e.g. {"mode": "workspace-write", "network": false, "allowGit": false}`},
	"permissions":        {kindObject, `give an object, e.g. {"allow": ["Bash(git *)"], "deny": ["Read(/etc/**)"]}`},
	"subagents":          {kindObject, `give an object, e.g. {"maxConcurrency": 4, "maxDepth": 1}`},
	"telemetry":          {kindObject, `give an object, e.g. {"endpoint": "http://localhost:4318", "protocol": "http/json"}`},
}

// checkTypes rejects a value of the wrong JSON type in one settings file.
// Null is accepted: it clears the value a lower-precedence file set.
func checkTypes(path string, values map[string]any) error {
	keys := make([]string, 0, len(values))
	for k := range values {
		keys = append(keys, k)
	}
	slices.Sort(keys) // the same key is reported first every time
	for _, k := range keys {
		for name, t := range settingTypes {
			if !strings.EqualFold(k, name) {
				continue
			}
			if val := values[k]; !t.kind.accepts(val) {
				return usageErr("%q in %s is %s: %s", k, path, describeValue(val), t.want)
			}
		}
	}
	return nil
}

func (k settingKind) accepts(val any) bool {
	switch t := val.(type) {
	case string:
		return k != kindObject
	case float64:
		return k == kindStringNum
	case []any:
		if k != kindList {
			return false
		}
		for _, x := range t {
			if _, ok := x.(string); !ok {
				return false
			}
		}
		return true
	case map[string]any:
		return k == kindObject
	case nil:
		return true // clears what a lower-precedence file set
	}
	return false // booleans
}

// describeValue names a settings value's JSON type and shows it, shortened.
func describeValue(val any) string {
	b, _ := pijson.Marshal(val)
	shown := string(b)
	if r := []rune(shown); len(r) > 40 {
		shown = string(r[:37]) + "…"
	}
	switch val.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean (" + shown + ")"
	case float64:
		return "a number (" + shown + ")"
	case string:
		return "a string (" + shown + ")"
	case []any:
		return "a list (" + shown + ")"
	}
	return "an object (" + shown + ")"
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

// str reads a text setting; from a file it is a string or, for the keys
// that take one, a number (checkTypes let no other type in).
func (c *settings) str(key string) string { return c.v.GetString(key) }

// origin names where a setting's value came from, for error messages: the
// flag, the environment variable, or the settings key and its file.
func (c *settings) origin(key string) string {
	flag, hasFlag := settingsKeys[key]
	if f := c.flags.Lookup(flag); hasFlag && f != nil && f.Changed {
		return "--" + flag
	}
	if name, ok := c.env[key]; ok {
		return name
	}
	if files := c.setBy[strings.ToLower(key)]; len(files) > 0 {
		return fmt.Sprintf("%q in %s", key, strings.Join(files, " or "))
	}
	if c.v.InConfig(key) {
		return fmt.Sprintf("%q in %s", key, strings.Join(c.files, " or "))
	}
	if !hasFlag {
		return fmt.Sprintf("setting %q", key)
	}
	return "--" + flag
}

// integer reads a whole-number setting strictly ("1.5" is an error).
func (c *settings) integer(key string) (int, error) {
	raw := strings.TrimSpace(c.str(key))
	if raw == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil {
		return 0, usageErr("%s %q: give a whole number", c.origin(key), raw)
	}
	return n, nil
}

// list reads a comma-separated or JSON-array setting (checkTypes let no
// other type in from a file; flags and the environment give strings).
func (c *settings) list(key string) []string {
	raw := c.v.Get(key)
	var out []string
	switch t := raw.(type) {
	case []any:
		for _, x := range t {
			out = append(out, fmt.Sprint(x))
		}
	case []string:
		out = t
	case string:
		for _, s := range strings.Split(t, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

// decode reads a structured setting (providers, hooks) into dst.
func (c *settings) decode(key string, dst any) error {
	raw := c.v.Get(key)
	if raw == nil {
		return nil
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return usageErr("%s: %v", c.origin(key), err)
	}
	if err := json.Unmarshal(b, dst); err != nil {
		return usageErr("%s has the wrong shape: %s", c.origin(key), jsonProblem(b, err))
	}
	return nil
}
