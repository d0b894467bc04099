package settings

import (
	"bytes"
	"encoding/json"
	"slices"
	"time"

	"gopi/pkg/assemble"
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

// mergeCustomTools reads the "customTools" of one settings file; a
// nearer file's tool replaces a farther one's of the same name.
func (s *Settings) mergeCustomTools(path string, raw json.RawMessage) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var list []customTool
	if err := dec.Decode(&list); err != nil {
		return assemble.Usagef("settings %s: \"customTools\" has the wrong shape: %s; give a list of "+
			`{"name", "description", "parameters", "command", "timeout"}`, path, JSONProblem(raw, err))
	}
	for _, t := range list {
		t.dir, t.file = HookDir(s.home, path), path
		s.customTools = slices.DeleteFunc(s.customTools, func(o customTool) bool { return o.Name == t.Name })
		s.customTools = append(s.customTools, t)
	}
	return nil
}

// customToolNames are the names of the declared custom tools.
func (s *Settings) customToolNames() []string {
	names := make([]string, len(s.customTools))
	for i, t := range s.customTools {
		names[i] = t.Name
	}
	return names
}

// CustomTools builds the custom tools ("customTools") among names.
func (s *Settings) CustomTools(names []string) ([]tools.Tool, error) {
	var out []tools.Tool
	for _, t := range s.customTools {
		if !slices.Contains(names, t.Name) {
			continue
		}
		spec := tools.CommandSpec{Name: t.Name, Description: t.Description, Parameters: t.Parameters, Command: t.Command,
			Timeout: time.Duration(t.Timeout * float64(time.Second))}
		if t.Timeout < 0 || t.Timeout > tools.MaxBashTimeout.Seconds() {
			return nil, assemble.Usagef("settings %s: custom tool %q: timeout %v: give seconds above 0 and at most 86400", t.file, t.Name, t.Timeout)
		}
		if t.dir != "" {
			spec.Env = []string{"GOPI_PROJECT_DIR=" + t.dir}
		}
		ct, err := tools.NewCommand(spec, tools.Options{})
		if err != nil {
			return nil, assemble.Usagef("settings %s: %v", t.file, err)
		}
		out = append(out, ct)
	}
	return out, nil
}
