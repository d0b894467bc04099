package cmd

import (
	"fmt"
	"slices"
	"strings"
)

// mergeSecrets adds the "secrets" of one settings file (a list of
// variable names, or one comma-separated string) to c.secrets. They add
// up across files, as hooks do: a project's list does not drop the
// user's.
func (c *settings) mergeSecrets(values map[string]any) {
	for k, v := range values {
		if !strings.EqualFold(k, "secrets") {
			continue
		}
		switch t := v.(type) {
		case []any:
			for _, x := range t {
				c.addSecret(fmt.Sprint(x))
			}
		case string:
			for _, s := range strings.Split(t, ",") {
				c.addSecret(s)
			}
		}
	}
}

func (c *settings) addSecret(name string) {
	if name = strings.TrimSpace(name); name != "" && !slices.Contains(c.secrets, name) {
		c.secrets = append(c.secrets, name)
	}
}
