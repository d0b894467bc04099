package cmd

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"gopi/pkg/tools"
)

// customTool is one entry of the "customTools" setting: a command of the
// user's offered to the model as a tool (tools.CommandTool).
type customTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	Command     string          `json:"command"`
	Timeout     float64         `json:"timeout"` // seconds; 0 is bash's default
	// dir is the project folder of the settings file that declared it
	// ("" for the user's own), given to the command as GOPI_PROJECT_DIR.
	dir string
	// file is that settings file, named in messages.
	file string
}

// mergeCustomTools reads the "customTools" of one settings file into c; a
// nearer file's tool replaces a farther one's of the same name.
func (c *config) mergeCustomTools(path string, raw json.RawMessage) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var list []customTool
	if err := dec.Decode(&list); err != nil {
		return usageErr("settings %s: \"customTools\" has the wrong shape: %v; give a list of "+
			`{"name", "description", "parameters", "command", "timeout"}`, path, err)
	}
	for _, t := range list {
		t.dir, t.file = hookDir(c.home, path), path
		c.customTools = slices.DeleteFunc(c.customTools, func(o customTool) bool { return o.Name == t.Name })
		c.customTools = append(c.customTools, t)
	}
	return nil
}

// customToolNames are the names of the declared custom tools.
func (c *config) customToolNames() []string {
	names := make([]string, len(c.customTools))
	for i, t := range c.customTools {
		names[i] = t.Name
	}
	return names
}

// commandTools builds the custom tools among names.
func commandTools(c *config, names []string) ([]tools.Tool, error) {
	var out []tools.Tool
	for _, t := range c.customTools {
		if !slices.Contains(names, t.Name) {
			continue
		}
		spec := tools.CommandSpec{Name: t.Name, Description: t.Description, Parameters: t.Parameters, Command: t.Command,
			Timeout: time.Duration(t.Timeout * float64(time.Second))}
		if t.Timeout < 0 || t.Timeout > tools.MaxBashTimeout.Seconds() {
			return nil, usageErr("settings %s: custom tool %q: timeout %v: give seconds above 0 and at most 86400", t.file, t.Name, t.Timeout)
		}
		if t.dir != "" {
			spec.Env = []string{"GOPI_PROJECT_DIR=" + t.dir}
		}
		ct, err := tools.NewCommand(spec, tools.Options{})
		if err != nil {
			return nil, usageErr("settings %s: %v", t.file, err)
		}
		out = append(out, ct)
	}
	return out, nil
}

// offeredTools is the tools setting with the custom tools: all of them
// when the user chose no tools list (the default set is offered), only
// the named ones when they did.
func offeredTools(c *config, names []string, noTools bool) []string {
	if noTools || c.chosen("tools") {
		return names
	}
	out := slices.Clone(names)
	for _, n := range c.customToolNames() {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// chosen reports a setting the user gave: by flag, environment or a
// settings file, not a default.
func (c *config) chosen(key string) bool {
	if f := c.flags.Lookup(settingsKeys[key]); f != nil && f.Changed {
		return true
	}
	_, byEnv := c.env[key]
	return byEnv || len(c.setBy[strings.ToLower(key)]) > 0
}

// unknownTool is the message for a tool name that is neither built in nor
// declared.
func unknownTool(c *config, name string) error {
	known := append(slices.Clone(tools.AllNames), c.customToolNames()...)
	return usageErr("%s: unknown tool %q: choose from %s, or declare it under \"customTools\" in settings",
		c.origin("tools"), name, strings.Join(known, ","))
}
