package cmd

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"gopi/pkg/assemble"
	"gopi/pkg/sandbox"
)

// sandboxSettings is settings' "sandbox" object.
type sandboxSettings struct {
	Mode     string `json:"mode"`
	Network  *bool  `json:"network"`
	AllowGit *bool  `json:"allowGit"`
	// AllowConfig lets commands and tools change the project's .gopi/,
	// .pi/, mcp.json and .mcp.json (read-only by default).
	AllowConfig *bool `json:"allowConfig"`
}

// permissionSettings is settings' "permissions" object.
type permissionSettings struct {
	Allow []string `json:"allow"`
	Deny  []string `json:"deny"`
	Ask   []string `json:"ask"` // asked about where gopi asks (gopi acp), refused elsewhere
}

// readSandbox reads the run's sandbox and permission rules from flags
// and settings; assemble builds the guard from them (and refuses a
// sandbox asked for that the kernel cannot give). Commands without these
// flags get nil.
func readSandbox(sys *System, flags *sandboxFlags, cfg *settings, cwd string) (*assemble.SandboxSettings, error) {
	if !flags.added {
		return nil, nil
	}
	var ss sandboxSettings
	if err := cfg.decode("sandbox", &ss); err != nil {
		return nil, err
	}
	var ps permissionSettings
	if err := cfg.decode("permissions", &ps); err != nil {
		return nil, err
	}
	m, origin, explicit, err := readMode(sys, flags, ss)
	if err != nil {
		return nil, err
	}
	p := sandbox.Policy{Mode: m, AllowGit: ss.AllowGit != nil && *ss.AllowGit, AllowConfig: ss.AllowConfig != nil && *ss.AllowConfig}
	p.Network = flags.allowNetwork || (ss.Network != nil && *ss.Network)
	if p.Writable, err = writableRoots(flags.addDirs, m, origin, cwd); err != nil {
		return nil, err
	}
	p.Cache = cacheDir(cfg, m, cwd)
	rules, err := readRules(flags.allowTools, flags.denyTools, ps, cwd)
	if err != nil {
		return nil, err
	}
	return &assemble.SandboxSettings{Policy: p, Rules: rules, Origin: origin, Explicit: explicit}, nil
}

// cacheDir is the workspace's build cache folder in workspace-write:
// $GOPI_HOME/cache/<folder>-<hash of its path>, one per working folder;
// "" in the other modes or without a gopi home.
func cacheDir(cfg *settings, m sandbox.Mode, cwd string) string {
	if m != sandbox.WorkspaceWrite || cfg.home == "" {
		return ""
	}
	return sandbox.CacheDir(filepath.Join(sandbox.RealPath(cfg.home), "cache"), cwd)
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

// readMode reads the sandbox mode: --sandbox over GOPI_SANDBOX over
// settings' "sandbox.mode"; unset (not explicit) is workspace-write.
func readMode(sys *System, flags *sandboxFlags, ss sandboxSettings) (m sandbox.Mode, origin string, explicit bool, err error) {
	raw, origin := ss.Mode, `"sandbox.mode" in settings`
	if v := sys.getenv("GOPI_SANDBOX"); v != "" {
		raw, origin = v, "GOPI_SANDBOX"
	}
	if flags.sandbox.set {
		raw, origin = flags.sandbox.v, "--sandbox"
	}
	if raw == "" {
		return sandbox.WorkspaceWrite, "--sandbox", false, nil
	}
	if m, err = sandbox.ParseMode(raw); err != nil {
		return "", origin, true, usageErr("%s: %v", origin, err)
	}
	return m, origin, true, nil
}

// writableRoots are the working folder and each --add-dir, real paths;
// --add-dir must name a folder, and only workspace-write takes it.
func writableRoots(dirs []string, m sandbox.Mode, origin, cwd string) ([]string, error) {
	roots := []string{sandbox.RealPath(cwd)}
	for _, d := range dirs {
		abs := d
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(cwd, d)
		}
		if st, err := os.Stat(abs); err != nil || !st.IsDir() {
			return nil, usageErr("--add-dir %s: not a folder; give an existing folder commands may write in", d)
		}
		roots = append(roots, sandbox.RealPath(abs))
	}
	if len(dirs) > 0 && m != sandbox.WorkspaceWrite {
		return nil, usageErr("--add-dir has no effect with %s %s: it adds a writable folder to workspace-write", origin, m)
	}
	return roots, nil
}

// readRules reads --allow-tools, --deny-tools and settings' permissions.
func readRules(allow, deny []string, ps permissionSettings, cwd string) (*sandbox.Rules, error) {
	rules, err := sandbox.ParseRules(append(ps.Allow, splitPatterns(allow)...), append(ps.Deny, splitPatterns(deny)...), cwd)
	if err == nil {
		err = rules.AddAsk(ps.Ask, cwd)
	}
	if err != nil {
		return nil, usageErr("%v", err)
	}
	return rules, nil
}

// splitPatterns splits flag values at commas outside parentheses.
func splitPatterns(values []string) []string {
	var out []string
	for _, v := range values {
		depth, start := 0, 0
		for i, c := range v {
			switch c {
			case '(':
				depth++
			case ')':
				depth--
			case ',':
				if depth == 0 {
					out = appendPattern(out, v[start:i])
					start = i + 1
				}
			}
		}
		out = appendPattern(out, v[start:])
	}
	return out
}

func appendPattern(out []string, s string) []string {
	if s = strings.TrimSpace(s); s != "" {
		out = append(out, s)
	}
	return out
}
