package cmd

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/spf13/cobra"
)

// The flags a command was given reach pkg/settings through flagValues as
// pflag holds them: a list flag's values with commas and parentheses
// whole, a changed flag over its variable, an unchanged one's default
// under a settings file.
func TestFlagsReachSettings(t *testing.T) {
	cwd := t.TempDir()
	sys, _, _ := sysFor(t, cwd, "GOPI_TOOLS=read", "GOPI_SANDBOX=off")
	writeSettings(t, filepath.Join(cwd, ".gopi", "settings.json"), `{"maxSteps":4}`)
	var o *runOptions
	c := newRunCmd(sys, func(_ *cobra.Command, got *runOptions) error { o = got; return nil })
	c.SetArgs([]string{"--tools", "ls,grep", "--deny-tools", "Bash(echo a,b),Read(/etc/**)",
		"--add-dir", cwd, "--sandbox", "workspace-write", "--allow-network"})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	cfg, ao, err := sys.Settings(agent(c, &o.agentOptions))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := cfg.Tools(false, nil); err != nil || !slices.Equal(got, []string{"ls", "grep"}) || cfg.Origin("tools") != "--tools" {
		t.Errorf("tools %q (%v) from %s", got, err, cfg.Origin("tools"))
	}
	if got := cfg.String("maxSteps"); got != "4" || cfg.Origin("maxSteps") != `"maxSteps" in `+filepath.Join(cwd, ".gopi", "settings.json") {
		t.Errorf("maxSteps %q from %s", got, cfg.Origin("maxSteps"))
	}
	sb, err := cfg.Sandbox(cwd, *ao.Sandbox)
	if err != nil || sb == nil {
		t.Fatalf("sandbox: %v %v", sb, err)
	}
	if sb.Origin != "--sandbox" || !sb.Policy.Network || len(sb.Policy.Writable) != 2 {
		t.Errorf("sandbox %+v", sb)
	}
	if _, denied := sb.Rules.Check("bash", "echo a,b", ""); !denied {
		t.Error("Bash(echo a,b) not denied")
	}
	if _, denied := sb.Rules.Check("bash", "echo a", ""); denied {
		t.Error("Bash(echo a,b) cut at its comma")
	}
	if _, denied := sb.Rules.Check("read", "/etc/passwd", "/etc/passwd"); !denied {
		t.Error("Read(/etc/**) not denied")
	}
}
