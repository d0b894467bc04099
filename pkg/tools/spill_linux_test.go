package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBashSpillFileRefused: when the temp file cannot be created (a
// folder that exists but takes no files, even for root), the output is
// still shown and the notice says why no copy was saved.
func TestBashSpillFileRefused(t *testing.T) {
	env := testEnv(t)
	env.TempDir = "/proc"
	if err := os.WriteFile(filepath.Join(env.Cwd, "out.txt"), []byte(lines(2001)), 0o644); err != nil {
		t.Fatal(err)
	}
	res := runTool(t, env, NewBash(Options{}), map[string]any{"command": "cat out.txt"})
	got := text(res)
	if res.IsError || !strings.HasPrefix(got, "line 2\nline 3\n") {
		t.Fatalf("got %q", clip(got))
	}
	wantContains(t, got, "\nline 2001\n\n[Showing lines 2-2001 of 2001. Full output: not saved (create temp file in /proc: open /proc/gopi-bash-")
	if d := res.Details.(*BashDetails); d.FullOutputPath != "" {
		t.Errorf("details %+v", d)
	}
}
