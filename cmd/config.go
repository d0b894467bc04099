package cmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"gopi/pkg/extension"
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
}

// config is one invocation's viper instance: flags > environment >
// project settings > global settings > defaults.
type config struct {
	v     *viper.Viper
	home  string   // $GOPI_HOME
	files []string // settings files read, global first
	flags *pflag.FlagSet
	env   map[string]string // key → the GOPI_ variable that set it
	// hooks are the "hooks" of every settings file, global first: they
	// add up instead of the project's replacing the user's.
	hooks extension.HooksConfig
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

// loadConfig reads settings files (none when bare) and binds flags and
// the environment.
func loadConfig(sys *System, flags *pflag.FlagSet, cwd string, bare bool) (*config, error) {
	home, err := gopiHome(sys)
	if err != nil {
		return nil, err
	}
	v := viper.New()
	v.SetConfigType("json")
	c := &config{v: v, home: home, flags: flags, env: map[string]string{}}
	if !bare {
		for _, f := range []string{filepath.Join(home, "settings.json"), filepath.Join(cwd, ".gopi", "settings.json")} {
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

// reapplyChangedFlags makes flags the user gave win over the environment,
// which was set explicitly above.
func reapplyChangedFlags(v *viper.Viper, flags *pflag.FlagSet) {
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
// one is a usage error naming it.
func (c *config) merge(path string) error {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return usageErr("read settings %s: %v", path, err)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		return usageErr("settings %s is not valid JSON: %v; fix or remove it", path, err)
	}
	if raw, ok := obj["hooks"]; ok {
		var h extension.HooksConfig
		if err := json.Unmarshal(raw, &h); err != nil {
			return usageErr("settings %s: \"hooks\" has the wrong shape: %v", path, err)
		}
		c.hooks.BeforeTool = append(c.hooks.BeforeTool, h.BeforeTool...)
		c.hooks.AfterTool = append(c.hooks.AfterTool, h.AfterTool...)
		delete(obj, "hooks")
	}
	if err := c.v.MergeConfigMap(toAny(obj)); err != nil {
		return usageErr("settings %s: %v", path, err)
	}
	c.files = append(c.files, path)
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

func (c *config) str(key string) string { return c.v.GetString(key) }

// origin names where a setting's value came from, for error messages: the
// flag, the environment variable, or the settings key.
func (c *config) origin(key string) string {
	flag := settingsKeys[key]
	if f := c.flags.Lookup(flag); f != nil && f.Changed {
		return "--" + flag
	}
	if name, ok := c.env[key]; ok {
		return name
	}
	if c.v.InConfig(key) {
		return fmt.Sprintf("%q in %s", key, strings.Join(c.files, " or "))
	}
	return "--" + flag
}

// integer reads a whole-number setting strictly ("1.5" is an error).
func (c *config) integer(key string) (int, error) {
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

// list reads a comma-separated or JSON-array setting.
func (c *config) list(key string) []string {
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
func (c *config) decode(key string, dst any) error {
	raw := c.v.Get(key)
	if raw == nil {
		return nil
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return usageErr("setting %s: %v", key, err)
	}
	if err := json.Unmarshal(b, dst); err != nil {
		return usageErr("setting %s has the wrong shape: %v", key, err)
	}
	return nil
}
