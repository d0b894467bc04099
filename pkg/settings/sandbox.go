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

// Sandbox is the sandbox and permission rules the flags and settings ask
// for, before the kernel is asked whether it can give them.
type Sandbox struct {
	Policy sandbox.Policy
	Rules  *sandbox.Rules
	// Origin names what set the mode ("--sandbox", "GOPI_SANDBOX",
	// `"sandbox.mode" in settings`); Explicit is false when nothing did
	// and the mode is the default.
	Origin   string
	Explicit bool
}

// Sandbox reads the sandbox and permission rules from the flags
// (--sandbox, --allow-network, --add-dir, --allow-tools, --deny-tools),
// GOPI_SANDBOX and settings' "sandbox" and "permissions". The private
// temp folder is made under spillDir. ok is false for a command without
// these flags.
func (s *Settings) Sandbox(cwd, spillDir string) (sb Sandbox, ok bool, err error) {
	if !s.HasFlag("sandbox") {
		return sb, false, nil
	}
	var ss sandboxSettings
	if err := s.Decode("sandbox", &ss); err != nil {
		return sb, false, err
	}
	var ps permissionSettings
	if err := s.Decode("permissions", &ps); err != nil {
		return sb, false, err
	}
	m, origin, explicit, err := s.sandboxMode(ss)
	if err != nil {
		return sb, false, err
	}
	p := sandbox.Policy{Mode: m, AllowGit: ss.AllowGit != nil && *ss.AllowGit, AllowConfig: ss.AllowConfig != nil && *ss.AllowConfig}
	p.Network = s.flagBool("allow-network") || (ss.Network != nil && *ss.Network)
	if p.Writable, err = s.writableRoots(m, origin, cwd); err != nil {
		return sb, false, err
	}
	p.TempDir = filepath.Join(sandbox.RealPath(filepath.Dir(spillDir)), filepath.Base(spillDir), "tmp")
	p.Cache = s.cacheDir(m, cwd)
	rules, err := s.rules(ps, cwd)
	if err != nil {
		return sb, false, err
	}
	return Sandbox{Policy: p, Rules: rules, Origin: origin, Explicit: explicit}, true, nil
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
func (s *Settings) sandboxMode(ss sandboxSettings) (m sandbox.Mode, origin string, explicit bool, err error) {
	raw, origin := ss.Mode, `"sandbox.mode" in settings`
	if v := s.getenv("GOPI_SANDBOX"); v != "" {
		raw, origin = v, "GOPI_SANDBOX"
	}
	if f := s.given("sandbox"); f != nil {
		raw, origin = f.ValueString(), "--sandbox"
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
func (s *Settings) writableRoots(m sandbox.Mode, origin, cwd string) ([]string, error) {
	roots := []string{sandbox.RealPath(cwd)}
	dirs := s.flagList("add-dir")
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
func (s *Settings) rules(ps permissionSettings, cwd string) (*sandbox.Rules, error) {
	allow, deny := s.flagList("allow-tools"), s.flagList("deny-tools")
	rules, err := sandbox.ParseRules(append(ps.Allow, splitPatterns(allow)...), append(ps.Deny, splitPatterns(deny)...), cwd)
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
