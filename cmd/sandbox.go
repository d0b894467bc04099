package cmd

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"gopi/pkg/ai"
	"gopi/pkg/mode"
	"gopi/pkg/sandbox"
	"gopi/pkg/settings"
)

// addSandboxFlags adds the sandbox and permission flags of run and chat.
func addSandboxFlags(f *pflag.FlagSet) {
	f.String("sandbox", "", "what tools and commands may write: read-only, workspace-write (the default where the kernel supports it) or off")
	f.Bool("allow-network", false, "let commands connect and bind TCP sockets (the sandbox blocks them by default)")
	f.StringArray("add-dir", nil, "a further folder commands and tools may write in (workspace-write; repeatable)")
	f.StringArray("allow-tools", nil, "permission patterns such as Bash(git *) or Edit(src/**): a tool named here may only be called as one says (repeatable, or comma-separated)")
	f.StringArray("deny-tools", nil, "permission patterns such as Bash(rm *) or Read(/etc/**): matching calls are refused (repeatable, or comma-separated; deny wins)")
}

// readGuard builds the run's sandbox and permission rules from flags and
// settings (settings.Sandbox). A sandbox asked for (by --sandbox,
// GOPI_SANDBOX or settings) that the kernel cannot give fails the run
// before anything is sent (exit 10); when only the default cannot be
// had, one stderr line says so and the run goes without. Commands
// without these flags get nil.
func readGuard(sys *System, cfg *settings.Settings, cwd, spillDir string) (*sandbox.Guard, error) {
	sb, ok, err := cfg.Sandbox(cwd, spillDir)
	if !ok || err != nil {
		return nil, err
	}
	p, m, origin := sb.Policy, sb.Policy.Mode, sb.Origin
	if err := sandbox.Check(p, sys.SandboxProbe); err != nil {
		if sb.Explicit {
			return nil, &classedError{Class: ai.ClassRequired, Err: fmt.Errorf("%s %s cannot be applied: %v; nothing was run (--sandbox off runs without a sandbox)", origin, m, err)}
		}
		fmt.Fprintf(sys.Stderr, "gopi: warning: running without a sandbox: %v (set --sandbox off to say so, or a mode to require one)\n", err)
		p.Mode = sandbox.Off
	}
	self, err := os.Executable()
	if err != nil && p.Enforced() {
		return nil, &classedError{Class: ai.ClassRequired, Err: fmt.Errorf("%s %s cannot be applied: the gopi executable is not found (%v); --sandbox off runs without a sandbox", origin, m, err)}
	}
	return sandbox.New(p, sb.Rules, self), nil
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

// setGuard records the run's sandbox for the object a second interrupt
// writes.
func (f *forcedExit) setGuard(g *sandbox.Guard) {
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.guard = g
}

// sandbox fills in the forced result's sandbox mode and denials.
func (f *forcedExit) sandbox(obj *mode.ResultObject) {
	f.mu.Lock()
	g := f.guard
	f.mu.Unlock()
	obj.Sandbox, obj.Denials = string(g.Mode()), g.Denials()
}
