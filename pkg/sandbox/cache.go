package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"strings"
)

// CacheVar is one environment variable that tells a toolchain where to
// keep its per-user cache, and the subfolder of the sandbox's cache
// folder it is pointed at.
type CacheVar struct {
	Name, Sub string
}

// CacheVars are the variables a sandboxed command's cache folders are
// given by: the toolchains' own caches, which would otherwise be written
// under the user's home, where the sandbox lets no command write.
// XDG_CACHE_HOME covers the many tools that keep theirs there.
var CacheVars = []CacheVar{
	{"GOCACHE", "go-build"},
	{"npm_config_cache", "npm"},
	{"YARN_CACHE_FOLDER", "yarn"},
	{"PIP_CACHE_DIR", "pip"},
	{"XDG_CACHE_HOME", "xdg"},
}

// CacheDir is the cache folder of the workspace cwd under base: one
// folder per workspace (its name and a hash of its real path), so what
// one project's commands put in their caches never reaches another
// project's builds.
func CacheDir(base, cwd string) string {
	real := realPath(cwd)
	sum := sha256.Sum256([]byte(real))
	name := strings.Map(func(r rune) rune {
		if r == '.' || r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, filepath.Base(real))
	if len(name) > 40 {
		name = name[:40]
	}
	if name == "" || strings.Trim(name, ".") == "" {
		name = "root"
	}
	return filepath.Join(base, name+"-"+hex.EncodeToString(sum[:6]))
}

// cacheRoot is where p's commands keep their caches: the policy's cache
// folder in workspace-write, a folder in the private temp folder (gone
// with the run) in read-only; "" when nothing is enforced.
func (p Policy) cacheRoot() string {
	switch {
	case !p.Enforced():
		return ""
	case p.Mode == WorkspaceWrite && p.Cache != "":
		return p.Cache
	case p.TempDir != "":
		return filepath.Join(p.TempDir, "cache")
	}
	return ""
}

// CacheEnv is env with each of CacheVars pointed into the policy's cache
// folder. A variable env already sets to an absolute folder the policy
// lets commands write (under a writable root, an --add-dir, the private
// temp folder) is kept: the user chose it. Any other value — the user's
// own cache in their home, which a command could poison for the user's
// builds outside gopi and which the sandbox does not let it write anyway
// — is replaced.
func (p Policy) CacheEnv(env []string) []string {
	root := p.cacheRoot()
	if root == "" {
		return env
	}
	for _, v := range CacheVars {
		if cur, ok := lookupVar(env, v.Name); ok && filepath.IsAbs(cur) && p.writeRule(realPath(cur), nil) == "" {
			continue
		}
		env = append(withoutVar(env, v.Name), v.Name+"="+filepath.Join(root, v.Sub))
	}
	return env
}

// CacheFolders are the folders CacheEnv points the variables at, as
// name=folder, for what gopi shows of the sandbox.
func (p Policy) CacheFolders() []string { return p.CacheEnv(nil) }

// lookupVar finds name in env; the last setting wins, as in exec.
func lookupVar(env []string, name string) (string, bool) {
	val, ok := "", false
	for _, kv := range env {
		if v, found := strings.CutPrefix(kv, name+"="); found {
			val, ok = v, true
		}
	}
	return val, ok
}
