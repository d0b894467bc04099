package cmd

import (
	"fmt"
	"slices"
	"strings"

	"gopi/pkg/tools"
)

// toolSecrets are the values scrubbed from every tool's output (and the
// hooks'): the key in use, every variable named like a key, the key
// variables of declared providers, and the variables settings declare in
// "secrets". The model can read gopi's own environment and command line
// (/proc/$PPID/environ, ps), so removing keys from the tools' environment
// is not enough. Values shorter than tools.MinSecretLen are not scrubbed;
// a declared one gets a warning.
func toolSecrets(sys *System, c *config, key string) *tools.Secrets {
	var list []tools.Secret
	declared := append(secretNames(c), c.secrets...)
	for _, kv := range sys.Environ {
		name, val, _ := strings.Cut(kv, "=")
		if val != "" && (isSecretName(name) || slices.Contains(declared, name)) {
			list = append(list, tools.Secret{Name: name, Value: val})
		}
	}
	if key != "" { // from --api-key or --api-key-file; a variable's name wins
		list = append(list, tools.Secret{Name: "API_KEY", Value: key})
	}
	for _, name := range c.secrets {
		if v := sys.getenv(name); v != "" && len(v) < tools.MinSecretLen {
			fmt.Fprintf(sys.Stderr, "gopi: warning: secret %s is shorter than %d bytes and is not scrubbed from tool output\n", name, tools.MinSecretLen)
		}
	}
	return tools.NewSecrets(list...)
}

// mergeSecrets adds the "secrets" of one settings file (a list of
// variable names, or one comma-separated string) to c.secrets. They add
// up across files, as hooks do: a project's list does not drop the
// user's.
func (c *config) mergeSecrets(values map[string]any) {
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

func (c *config) addSecret(name string) {
	if name = strings.TrimSpace(name); name != "" && !slices.Contains(c.secrets, name) {
		c.secrets = append(c.secrets, name)
	}
}
