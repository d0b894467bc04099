package settings

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopi/pkg/sandbox"
)

// The mode: --sandbox over GOPI_SANDBOX over "sandbox.mode"; unset is
// workspace-write, not explicit.
func TestSandboxMode(t *testing.T) {
	for _, c := range []struct {
		name, project, env string
		flags              SandboxFlags
		mode               sandbox.Mode
		origin             string
		explicit           bool
	}{
		{name: "unset", mode: sandbox.WorkspaceWrite, origin: "--sandbox"},
		{name: "settings", project: `{"sandbox": {"mode": "read-only"}}`, mode: sandbox.ReadOnly, origin: `"sandbox.mode" in settings`, explicit: true},
		{name: "the variable", project: `{"sandbox": {"mode": "read-only"}}`, env: "off", mode: sandbox.Off, origin: "GOPI_SANDBOX", explicit: true},
		{name: "the flag", env: "off", flags: SandboxFlags{Mode: "workspace-write", ModeSet: true}, mode: sandbox.WorkspaceWrite, origin: "--sandbox", explicit: true},
		{name: "the flag's default", env: "off", flags: SandboxFlags{Mode: "read-only"}, mode: sandbox.Off, origin: "GOPI_SANDBOX", explicit: true},
	} {
		p := newPlace(t, "", c.project)
		p.env = map[string]string{"GOPI_SANDBOX": c.env}
		sb, err := p.load(t, runFlags(), false).Sandbox(p.cwd, c.flags)
		if err != nil || sb.Policy.Mode != c.mode || sb.Origin != c.origin || sb.Explicit != c.explicit {
			t.Errorf("%s: %+v %v", c.name, sb, err)
		}
	}
}

// Network, git and the config files are closed unless the flag or the
// settings open them.
func TestSandboxSwitches(t *testing.T) {
	for _, c := range []struct {
		project                    string
		flagNetwork                bool
		network, allowGit, allowCf bool
	}{
		{project: ``},
		{project: `{"sandbox": {"network": false, "allowGit": false, "allowConfig": false}}`},
		{project: `{"sandbox": {"network": false}}`, flagNetwork: true, network: true},
		{project: `{"sandbox": {"network": true}}`, network: true},
		{project: `{"sandbox": {"allowGit": true}}`, allowGit: true},
		{project: `{"sandbox": {"allowConfig": true}}`, allowCf: true},
	} {
		p := newPlace(t, "", c.project)
		sb, err := p.load(t, runFlags(), false).Sandbox(p.cwd, SandboxFlags{Network: c.flagNetwork})
		if err != nil || sb.Policy.Network != c.network || sb.Policy.AllowGit != c.allowGit || sb.Policy.AllowConfig != c.allowCf {
			t.Errorf("%s (--allow-network %v): %+v %v", c.project, c.flagNetwork, sb.Policy, err)
		}
	}
}

// The writable roots are the working folder and each --add-dir (a
// relative one from the working folder), as real paths; the build cache
// is $GOPI_HOME's, in workspace-write only.
func TestSandboxRoots(t *testing.T) {
	p := newPlace(t, "", "")
	other := t.TempDir()
	for _, d := range []string{filepath.Join(p.cwd, "out"), other} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(p.cwd, "file"), "x")
	s := p.load(t, runFlags(), false)
	sb, err := s.Sandbox(p.cwd, SandboxFlags{AddDirs: []string{"out", other}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{sandbox.RealPath(p.cwd), sandbox.RealPath(filepath.Join(p.cwd, "out")), sandbox.RealPath(other)}
	if strings.Join(sb.Policy.Writable, "|") != strings.Join(want, "|") {
		t.Errorf("writable %q, want %q", sb.Policy.Writable, want)
	}
	cacheBase := filepath.Join(sandbox.RealPath(p.home), "cache") + string(filepath.Separator)
	if !strings.HasPrefix(sb.Policy.Cache, cacheBase) || len(sb.Policy.Cache) <= len(cacheBase) {
		t.Errorf("cache %q, want one under %s", sb.Policy.Cache, cacheBase)
	}
	sb, err = s.Sandbox(p.cwd, SandboxFlags{Mode: "read-only", ModeSet: true})
	if err != nil || sb.Policy.Cache != "" || strings.Join(sb.Policy.Writable, "|") != sandbox.RealPath(p.cwd) {
		t.Errorf("read-only: %+v %v", sb.Policy, err)
	}
	noHome, err := Load(Options{Cwd: p.cwd})
	if err != nil {
		t.Fatal(err)
	}
	if sb, err = noHome.Sandbox(p.cwd, SandboxFlags{}); err != nil || sb.Policy.Cache != "" {
		t.Errorf("without a home: %+v %v", sb.Policy, err)
	}
	for _, c := range []struct {
		flags SandboxFlags
		env   string
		want  string
	}{
		{flags: SandboxFlags{AddDirs: []string{"missing"}}, want: `--add-dir missing: not a folder; give an existing folder commands may write in`},
		{flags: SandboxFlags{AddDirs: []string{"file"}}, want: `--add-dir file: not a folder; give an existing folder commands may write in`},
		{flags: SandboxFlags{AddDirs: []string{"out"}, Mode: "read-only", ModeSet: true}, want: `--add-dir has no effect with --sandbox read-only: it adds a writable folder to workspace-write`},
		{flags: SandboxFlags{AddDirs: []string{"out"}}, env: "off", want: `--add-dir has no effect with GOPI_SANDBOX off: it adds a writable folder to workspace-write`},
		{env: "none", want: `GOPI_SANDBOX: "none" is not a sandbox mode: use read-only, workspace-write or off`},
	} {
		p.env = map[string]string{"GOPI_SANDBOX": c.env}
		_, err := p.load(t, runFlags(), false).Sandbox(p.cwd, c.flags)
		usage(t, c.want, err, c.want)
	}
}

// The permission rules are settings' "permissions" and the flags',
// whose values split at commas outside parentheses.
func TestSandboxRules(t *testing.T) {
	p := newPlace(t, "", `{"permissions": {"allow": ["Read(**)"], "deny": ["Bash(rm *)"], "ask": ["Write(secret/**)"]}}`)
	sb, err := p.load(t, runFlags(), false).Sandbox(p.cwd, SandboxFlags{
		Allow: []string{"Bash(git status,git diff), Edit(src/**) ", ",Grep"}, Deny: []string{"Read(/etc/**),Ls"}})
	if err != nil {
		t.Fatal(err)
	}
	r := sb.Rules
	for _, c := range []struct {
		tool, arg string
		denied    bool
	}{
		{"bash", "git status,git diff", false}, {"bash", "git status", true}, {"bash", "git push", true}, {"bash", "rm -rf x", true},
		{"read", "/etc/passwd", true}, {"read", filepath.Join(p.cwd, "a"), false},
		{"edit", filepath.Join(p.cwd, "src", "a.go"), false}, {"edit", filepath.Join(p.cwd, "a.go"), true},
		{"grep", "x", false}, {"ls", ".", true}, {"find", ".", false},
	} {
		if _, denied := r.Check(c.tool, c.arg, c.arg); denied != c.denied {
			t.Errorf("%s %s: denied %v, want %v", c.tool, c.arg, denied, c.denied)
		}
	}
	if _, asks := r.Asks("write", filepath.Join(p.cwd, "secret", "k"), filepath.Join(p.cwd, "secret", "k")); !asks {
		t.Errorf("the ask rule is not kept")
	}
	for _, c := range []struct {
		project string
		flags   SandboxFlags
		want    string
	}{
		{`{"sandbox": {"mode": 1}}`, SandboxFlags{}, `"sandbox" in FILE has the wrong shape: "mode" is a number: give a string`},
		{`{"permissions": {"allow": "Read"}}`, SandboxFlags{}, `"permissions" in FILE has the wrong shape: "allow" is a string: give a list`},
		{`{"sandbox": {"mode": "open"}}`, SandboxFlags{}, `"sandbox.mode" in settings: "open" is not a sandbox mode: use read-only, workspace-write or off`},
	} {
		p := newPlace(t, "", c.project)
		_, err := p.load(t, runFlags(), false).Sandbox(p.cwd, c.flags)
		usage(t, c.project, err, strings.ReplaceAll(c.want, "FILE", p.projectFile))
	}
	for _, c := range []struct{ allow, deny, ask string }{{allow: "Bash("}, {deny: "Bash("}, {ask: "Bash("}} {
		p := newPlace(t, "", `{"permissions": {"ask": ["`+c.ask+`"]}}`)
		if c.ask == "" {
			write(t, p.projectFile, `{}`)
		}
		flags := SandboxFlags{}
		if c.allow != "" {
			flags.Allow = []string{c.allow}
		}
		if c.deny != "" {
			flags.Deny = []string{c.deny}
		}
		_, err := p.load(t, runFlags(), false).Sandbox(p.cwd, flags)
		if err == nil || !strings.Contains(err.Error(), "Bash(") {
			t.Errorf("a malformed rule %+v: %v", c, err)
		}
	}
}

func TestSplitPatterns(t *testing.T) {
	got := splitPatterns([]string{"Bash(a,b),Read", " , ", "Edit(x(y,z)),Write(", "Ls,Grep"})
	if want := "Bash(a,b)|Read|Edit(x(y,z))|Write(|Ls|Grep"; strings.Join(got, "|") != want {
		t.Errorf("splitPatterns: %q, want %s", got, want)
	}
}
