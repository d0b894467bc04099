package assemble

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
func toolSecrets(env Env, s *Settings, key string) *tools.Secrets {
	for _, name := range s.Secrets {
		if v := env.Getenv(name); v != "" && len(v) < tools.MinSecretLen {
			fmt.Fprintf(env.Stderr, "gopi: warning: secret %s is shorter than %d bytes and is not scrubbed from tool output\n", name, tools.MinSecretLen)
		}
	}
	return secretsOf(env, s, key)
}

// secretsOf is toolSecrets without its warnings.
func secretsOf(env Env, s *Settings, key string) *tools.Secrets {
	var list []tools.Secret
	declared := append(SecretNames(s.Model.Providers), s.Secrets...)
	for _, kv := range env.Environ {
		name, val, _ := strings.Cut(kv, "=")
		if val != "" && (isSecretName(name) || slices.Contains(declared, name)) {
			list = append(list, tools.Secret{Name: name, Value: val})
		}
	}
	if key != "" { // from --api-key or --api-key-file; a variable's name wins
		list = append(list, tools.Secret{Name: "API_KEY", Value: key})
	}
	return tools.NewSecrets(list...)
}

// Secrets are the values kept out of tool output (toolSecrets), for
// other text read on the model's behalf (@file arguments): the key in use
// once the model is chosen, else the one the settings give.
func (a *Assembly) Secrets() *tools.Secrets {
	key := a.s.Model.APIKey
	if a.chosen {
		key = a.choice.Key
	}
	return secretsOf(a.env, &a.s, key)
}

// ScrubEnv removes credentials from the environment tools and hooks see:
// variables named like keys, the variables settings name as a provider's
// key (names), and any variable holding the key in use.
func ScrubEnv(environ []string, names []string, key string) []string {
	var out []string
	for _, kv := range environ {
		name, val, _ := strings.Cut(kv, "=")
		if isSecretName(name) || slices.Contains(names, name) || (key != "" && val == key) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// SecretNames lists the apiKeyEnv variables of declared providers.
func SecretNames(providers map[string]Provider) []string {
	var names []string
	for _, p := range providers {
		if p.APIKeyEnv != "" {
			names = append(names, p.APIKeyEnv)
		}
	}
	return names
}

func isSecretName(name string) bool {
	u := strings.ToUpper(name)
	for _, suffix := range []string{"_API_KEY", "_AUTH_TOKEN", "_OAUTH_TOKEN", "_SECRET_KEY"} {
		if strings.HasSuffix(u, suffix) {
			return true
		}
	}
	return u == "API_KEY"
}
