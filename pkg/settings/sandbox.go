package settings

import (
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

// SandboxFlags are the sandbox and permission flags as given: --sandbox
// (ModeSet when it was given), --allow-network, --add-dir, --allow-tools
// and --deny-tools.
type SandboxFlags struct {
	Mode        string
	ModeSet     bool
	Network     bool
	AddDirs     []string
	Allow, Deny []string
}

// Sandbox reads the sandbox and permission rules from the flags,
// GOPI_SANDBOX and settings' "sandbox" and "permissions": what assemble
// builds the guard from, before the kernel is asked whether it can give
// them.
func (s *Settings) Sandbox(cwd string, f SandboxFlags) (*assemble.SandboxSettings, error) {
	var ss sandboxSettings
	if err := s.Decode("sandbox", &ss); err != nil {
		return nil, err
	}
	var ps permissionSettings
	if err := s.Decode("permissions", &ps); err != nil {
		return nil, err
	}
	m, origin, explicit, err := s.sandboxMode(ss, f)
	if err != nil {
		return nil, err
	}
	p := sandbox.Policy{Mode: m, AllowGit: ss.AllowGit != nil && *ss.AllowGit, AllowConfig: ss.AllowConfig != nil && *ss.AllowConfig}
	p.Network = f.Network || (ss.Network != nil && *ss.Network)
	if p.Writable, err = writableRoots(f.AddDirs, m, origin, cwd); err != nil {
		return nil, err
	}
	p.Cache = s.cacheDir(m, cwd)
	rules, err := rules(ps, f, cwd)
	if err != nil {
		return nil, err
	}
	return &assemble.SandboxSettings{Policy: p, Rules: rules, Origin: origin, Explicit: explicit}, nil
}

// cacheDir is the workspace's build cache folder in workspace-write:
// $GOPI_HOME/cache/<folder>-<hash of its path>, one per working folder;
// "" in the other modes or without a gopi home.
func (s *Settings) cacheDir(m sandbox.Mode, cwd string) string {
	if m != sandbox.WorkspaceWrite || s.home == "" {
		return ""
	}
	return sandbox.CacheDir(filepath.Join(sandbox.RealPath(s.home), "cache"), cwd)
}

// sandboxMode reads the sandbox mode: --sandbox over GOPI_SANDBOX over
// settings' "sandbox.mode"; unset (not explicit) is workspace-write.
func (s *Settings) sandboxMode(ss sandboxSettings, f SandboxFlags) (m sandbox.Mode, origin string, explicit bool, err error) {
	raw, origin := ss.Mode, `"sandbox.mode" in settings`
	if v := s.getenv("GOPI_SANDBOX"); v != "" {
		raw, origin = v, "GOPI_SANDBOX"
	}
	if f.ModeSet {
		raw, origin = f.Mode, "--sandbox"
	}
	if raw == "" {
		return sandbox.WorkspaceWrite, "--sandbox", false, nil
	}
	if m, err = sandbox.ParseMode(raw); err != nil {
		return "", origin, true, assemble.Usagef("%s: %v", origin, err)
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
			return nil, assemble.Usagef("--add-dir %s: not a folder; give an existing folder commands may write in", d)
		}
		roots = append(roots, sandbox.RealPath(abs))
	}
	if len(dirs) > 0 && m != sandbox.WorkspaceWrite {
		return nil, assemble.Usagef("--add-dir has no effect with %s %s: it adds a writable folder to workspace-write", origin, m)
	}
	return roots, nil
}

// rules reads --allow-tools, --deny-tools and settings' permissions.
func rules(ps permissionSettings, f SandboxFlags, cwd string) (*sandbox.Rules, error) {
	rules, err := sandbox.ParseRules(append(ps.Allow, splitPatterns(f.Allow)...), append(ps.Deny, splitPatterns(f.Deny)...), cwd)
	if err == nil {
		err = rules.AddAsk(ps.Ask, cwd)
	}
	if err != nil {
		return nil, assemble.Usagef("%v", err)
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
