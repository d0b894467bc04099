package cmd

import (
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"gopi/internal/cmdutil"
	"gopi/pkg/exitcode"
)

// TestHelpExitCodes: every command's --help ends with one exit code table,
// its own: only bare gopi and run name the codes of a model run.
func TestHelpExitCodes(t *testing.T) {
	sys, _, _ := sysFor(t, t.TempDir())
	sys.Args = []string{"--help"}
	root := newRootCmd(sys)
	code := regexp.MustCompile(`(?m)^  (\d+) `)
	var walk func(c *cobra.Command)
	seen := map[string]bool{}
	walk = func(c *cobra.Command) {
		path := strings.TrimPrefix(strings.TrimPrefix(c.CommandPath(), "gopi"), " ")
		seen[path] = true
		args := append(strings.Fields(path), "--help")
		stdout, stderr, exit := runMain(t, sys, args...)
		if exit != 0 {
			t.Errorf("gopi %s: exit %d, stderr %q", strings.Join(args, " "), exit, stderr)
		}
		if n := strings.Count(stdout, "Exit codes:"); n != 1 {
			t.Errorf("gopi %s: %d exit code tables, want 1:\n%s", strings.Join(args, " "), n, stdout)
			return
		}
		_, table, _ := strings.Cut(stdout, "Exit codes:")
		if strings.TrimSpace(table) != strings.TrimSpace(strings.TrimPrefix(cmdutil.ExitCodesOf(c), "Exit codes:")) {
			t.Errorf("gopi %s: the help does not end with its table:\n%s", strings.Join(args, " "), table)
		}
		var codes []string
		for _, m := range code.FindAllStringSubmatch(table, -1) {
			codes = append(codes, m[1])
		}
		modelRun := path == "" || path == "run"
		if has := strings.Contains(table, "max steps"); has != modelRun {
			t.Errorf("gopi %s: codes %v: a model run's table is for bare gopi and run only", strings.Join(args, " "), codes)
		}
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() {
				walk(sub)
			}
		}
	}
	walk(root)
	for _, path := range exitcode.Commands() {
		if !seen[path] {
			t.Errorf("exitcode has a table for %q, which is no command", path)
		}
	}
	for _, want := range []string{"session export", "mcp list", "chat", "rpc", "version"} {
		if _, own := exitcode.Table(want); !own {
			t.Errorf("gopi %s has no table of its own", want)
		}
	}
}
