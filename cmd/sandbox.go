package cmd

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"gopi/pkg/assemble"
	"gopi/pkg/sandbox"
	"gopi/pkg/settings"
)

// readSandbox reads the run's sandbox and permission rules from the
// flags given and settings (settings.Sandbox); assemble builds the guard
// from them (and refuses a sandbox asked for that the kernel cannot
// give). Commands without these flags get nil.
func readSandbox(flags *sandboxFlags, cfg *settings.Settings, cwd string) (*assemble.SandboxSettings, error) {
	if !flags.added {
		return nil, nil
	}
	return cfg.Sandbox(cwd, settings.SandboxFlags{Mode: flags.sandbox.v, ModeSet: flags.sandbox.set, Network: flags.allowNetwork,
		AddDirs: flags.addDirs, Allow: flags.allowTools, Deny: flags.denyTools})
}

// sandboxBanner is the sandbox as the chat's banner shows it: the mode
// and, in workspace-write, the build cache folder (~ for the home).
func sandboxBanner(p sandbox.Policy, home string) string {
	if !p.Enforced() {
		return string(sandbox.Off)
	}
	if p.Cache == "" {
		return string(p.Mode)
	}
	c := p.Cache
	if home != "" {
		if rest, ok := strings.CutPrefix(c, sandbox.RealPath(home)+string(filepath.Separator)); ok {
			c = filepath.Join("~", rest)
		}
	}
	return string(p.Mode) + " (build caches in " + c + ")"
}

// printSandboxContext is gopi context's sandbox section: what commands
// may write, where their build caches are and which variables point
// there (environ: the process's, a value the user set to a writable
// folder kept), network and .git.
func printSandboxContext(w io.Writer, p sandbox.Policy, environ []string) {
	if !p.Enforced() {
		fmt.Fprintf(w, "\n# Sandbox: off (commands may write anywhere the user may)\n")
		return
	}
	fmt.Fprintf(w, "\n# Sandbox: %s (--sandbox, GOPI_SANDBOX or settings' \"sandbox.mode\" change it)\n", p.Mode)
	if p.Mode == sandbox.WorkspaceWrite {
		fmt.Fprintf(w, "- commands write under: %s\n", strings.Join(p.Writable, ", "))
	}
	fmt.Fprintln(w, "- commands write in a private temp folder ($TMPDIR), made for each run and removed after it")
	if p.Cache != "" {
		fmt.Fprintf(w, "- build caches of this working folder, kept between runs: %s (delete the folder to clear them)\n", p.Cache)
	} else {
		fmt.Fprintln(w, "- build caches: in the private temp folder, gone with the run")
	}
	env := p.CacheEnv(environ)
	for _, v := range sandbox.CacheVars {
		for _, kv := range env {
			if val, ok := strings.CutPrefix(kv, v.Name+"="); ok {
				if rest, in := strings.CutPrefix(val, p.TempDir+string(filepath.Separator)); in && p.TempDir != "" {
					val = filepath.Join("$TMPDIR", rest)
				}
				fmt.Fprintf(w, "  - %s=%s\n", v.Name, val)
			}
		}
	}
	if p.Network {
		fmt.Fprintln(w, "- network: allowed")
	} else {
		fmt.Fprintln(w, "- network: no TCP connect or bind (--allow-network allows them)")
	}
	if p.Mode == sandbox.WorkspaceWrite && !p.AllowGit {
		fmt.Fprintln(w, `- .git: read-only (settings "sandbox": {"allowGit": true} makes it writable)`)
	}
}
