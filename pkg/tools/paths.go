package tools

import (
	"os"
	"path/filepath"
	"strings"
)

// unicodeSpaces are the spaces pi turns into ASCII spaces in paths typed by
// a model (no-break, en/em and friends, ideographic).
var unicodeSpaces = strings.NewReplacer(
	"\u00A0", " ", "\u2000", " ", "\u2001", " ", "\u2002", " ", "\u2003", " ",
	"\u2004", " ", "\u2005", " ", "\u2006", " ", "\u2007", " ", "\u2008", " ",
	"\u2009", " ", "\u200A", " ", "\u202F", " ", "\u205F", " ", "\u3000", " ",
)

// resolvePath makes p absolute against env.Cwd, as pi does: a leading '@'
// is dropped, unicode spaces become spaces, "~" and "~/" expand to the
// HOME of env.Environ (the user's home when it has none), absolute paths
// stay. The process's working directory is never used.
func resolvePath(env *Env, p string) string {
	p = strings.TrimPrefix(p, "@")
	p = unicodeSpaces.Replace(p)
	if p == "~" || strings.HasPrefix(p, "~/") {
		p = env.home() + p[1:]
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(env.Cwd, p)
}

// home is HOME from the environment given to the tools, falling back to
// the user's home directory.
func (e *Env) home() string {
	if h, ok := e.lookup("HOME"); ok && h != "" {
		return h
	}
	h, err := os.UserHomeDir()
	if err != nil {
		return "/"
	}
	return h
}

// lookup finds one variable in e.Environ; the last setting wins, as in exec.
func (e *Env) lookup(name string) (string, bool) {
	val, found := "", false
	for _, kv := range e.Environ {
		if k, v, ok := strings.Cut(kv, "="); ok && k == name {
			val, found = v, true
		}
	}
	return val, found
}

// tempDir is where spilled output goes.
func (e *Env) tempDir() string {
	if e.TempDir != "" {
		return e.TempDir
	}
	return os.TempDir()
}
