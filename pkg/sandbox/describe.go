package sandbox

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// Banner is the policy as the chat's banner shows it: the mode and, in
// workspace-write, the build cache folder (~ for home).
func (p Policy) Banner(home string) string {
	if !p.Enforced() {
		return string(Off)
	}
	if p.Cache == "" {
		return string(p.Mode)
	}
	c := p.Cache
	if home != "" {
		if rest, ok := strings.CutPrefix(c, RealPath(home)+string(filepath.Separator)); ok {
			c = filepath.Join("~", rest)
		}
	}
	return string(p.Mode) + " (build caches in " + c + ")"
}

// Describe writes gopi context's sandbox section: what commands may
// write, where their build caches are and which variables point there
// (environ: the process's, a value the user set to a writable folder
// kept), network and .git.
func (p Policy) Describe(w io.Writer, environ []string) {
	if !p.Enforced() {
		fmt.Fprintf(w, "\n# Sandbox: off (commands may write anywhere the user may)\n")
		return
	}
	fmt.Fprintf(w, "\n# Sandbox: %s (--sandbox, GOPI_SANDBOX or settings' \"sandbox.mode\" change it)\n", p.Mode)
	if p.Mode == WorkspaceWrite {
		fmt.Fprintf(w, "- commands write under: %s\n", strings.Join(p.Writable, ", "))
	}
	fmt.Fprintln(w, "- commands write in a private temp folder ($TMPDIR), made for each run and removed after it")
	if p.Cache != "" {
		fmt.Fprintf(w, "- build caches of this working folder, kept between runs: %s (delete the folder to clear them)\n", p.Cache)
	} else {
		fmt.Fprintln(w, "- build caches: in the private temp folder, gone with the run")
	}
	p.describeCacheEnv(w, environ)
	if p.Network {
		fmt.Fprintln(w, "- network: allowed")
	} else {
		fmt.Fprintln(w, "- network: no TCP connect or bind (--allow-network allows them)")
	}
	if p.Mode == WorkspaceWrite && !p.AllowGit {
		fmt.Fprintln(w, `- .git: read-only (settings "sandbox": {"allowGit": true} makes it writable)`)
	}
}

// describeCacheEnv lists the cache variables a command gets, a value
// under the private temp folder as $TMPDIR.
func (p Policy) describeCacheEnv(w io.Writer, environ []string) {
	env := p.CacheEnv(environ)
	for _, v := range CacheVars {
		for _, kv := range env {
			if val, ok := strings.CutPrefix(kv, v.Name+"="); ok {
				if rest, in := strings.CutPrefix(val, p.TempDir+string(filepath.Separator)); in && p.TempDir != "" {
					val = filepath.Join("$TMPDIR", rest)
				}
				fmt.Fprintf(w, "  - %s=%s\n", v.Name, val)
			}
		}
	}
}
