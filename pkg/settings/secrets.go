package settings

import (
	"fmt"
	"slices"
	"strings"
)

// mergeSecrets adds the "secrets" of one settings file (a list of
// variable names, or one comma-separated string) to s.secrets. They add
// up across files, as hooks do: a project's list does not drop the
// user's.
func (s *Settings) mergeSecrets(values map[string]any) {
	for k, v := range values {
		if !strings.EqualFold(k, "secrets") {
			continue
		}
		switch t := v.(type) {
		case []any:
			for _, x := range t {
				s.AddSecret(fmt.Sprint(x))
			}
		case string:
			for _, name := range strings.Split(t, ",") {
				s.AddSecret(name)
			}
		}
	}
}

// AddSecret adds a variable name whose value is scrubbed from tool
// output like a key (an MCP server's header token).
func (s *Settings) AddSecret(name string) {
	if name = strings.TrimSpace(name); name != "" && !slices.Contains(s.secrets, name) {
		s.secrets = append(s.secrets, name)
	}
}
