package assemble_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gopi/internal/fdcheck"
	"gopi/pkg/ai"
	"gopi/pkg/assemble"
	"gopi/pkg/sandbox"
)

// script writes a faux reply script and returns its path.
func script(t *testing.T, js string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "script.json")
	if err := os.WriteFile(p, []byte(js), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// bashThen is a script that runs command with bash, then answers "done".
func bashThen(t *testing.T, command string) string {
	t.Helper()
	args, err := json.Marshal(map[string]string{"command": command})
	if err != nil {
		t.Fatal(err)
	}
	return script(t, `[{"toolCalls":[{"name":"bash","arguments":`+string(args)+`}]},{"text":"done"}]`)
}

// toolTexts are the texts of the session's tool results, in order.
func toolTexts(a *assemble.Assembly) []string {
	var out []string
	for _, e := range a.Store().Entries() {
		if m := e.Message; m != nil && m.Role == ai.RoleToolResult {
			for _, c := range m.Content {
				out = append(out, c.Text)
			}
		}
	}
	return out
}

// The spill folder is kept when the session names it (a result points
// into it), removed otherwise; with --no-session nothing names it.
func TestSpillFolderKeptWhenTheSessionNamesIt(t *testing.T) {
	fdcheck.Check(t)
	for _, tc := range []struct {
		name      string
		noSession bool
		mention   bool
		kept      bool
	}{
		{"named", false, true, true},
		{"not named", false, false, false},
		{"no session", true, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stderr bytes.Buffer
			s := settings(t)
			s.Session.None = tc.noSession
			cmd := "mkdir -p " + s.SpillDir + " && echo made"
			if tc.mention {
				cmd = "mkdir -p " + s.SpillDir + " && echo " + filepath.Join(s.SpillDir, "out.txt")
			}
			s.Model.ID = bashThen(t, cmd)
			a, err := assemble.Build(s, env(&stderr))
			if err != nil {
				t.Fatal(err)
			}
			prompt(t, a, "spill")
			dispose(t, a)
			if a.SpillKept() != tc.kept {
				a.Close()
				t.Fatalf("SpillKept %v, want %v (results %q)", a.SpillKept(), tc.kept, toolTexts(a))
			}
			a.Close()
			_, err = os.Stat(s.SpillDir)
			if kept := err == nil; kept != tc.kept {
				t.Fatalf("spill folder kept %v after Close, want %v", kept, tc.kept)
			}
		})
	}
}

// A session left for another keeps naming the spill folder: Reopen on a
// new session still keeps it at Close.
func TestSpillFolderKeptAfterLeavingTheSessionThatNamesIt(t *testing.T) {
	fdcheck.Check(t)
	var stderr bytes.Buffer
	s := settings(t)
	s.Model.ID = bashThen(t, "mkdir -p "+s.SpillDir+" && echo "+filepath.Join(s.SpillDir, "out.txt"))
	a, err := assemble.Build(s, env(&stderr))
	if err != nil {
		t.Fatal(err)
	}
	prompt(t, a, "spill")
	dispose(t, a)
	if _, err := a.Reopen(assemble.Want{NewSession: true}); err != nil {
		a.Close()
		t.Fatal(err)
	}
	dispose(t, a)
	if !a.SpillKept() {
		a.Close()
		t.Fatal("the session left for a new one named the spill folder, and it is not kept")
	}
	a.Close()
	if _, err := os.Stat(s.SpillDir); err != nil {
		t.Fatalf("spill folder removed: %v", err)
	}
}

// spillSiblings makes, beside spill, kept folders of earlier runs: one
// an hour over a week old, one an hour short of it, a link to an old
// folder, an old file, an old folder of another name and, when the test
// may give it away, an old one of another user. It returns their paths.
func spillSiblings(t *testing.T, spill string, now time.Time) map[string]string {
	t.Helper()
	parent := filepath.Dir(spill)
	week := 7 * 24 * time.Hour
	old, recent := now.Add(-week-time.Hour), now.Add(-week+time.Hour)
	p := map[string]string{
		"old":    filepath.Join(parent, "gopi-run-old"),
		"recent": filepath.Join(parent, "gopi-run-recent"),
		"link":   filepath.Join(parent, "gopi-run-link"),
		"file":   filepath.Join(parent, "gopi-run-file"),
		"other":  filepath.Join(parent, "other-old"),
		"target": filepath.Join(t.TempDir(), "target"),
	}
	for _, k := range []string{"old", "recent", "other", "target"} {
		if err := os.MkdirAll(filepath.Join(p[k], "inside"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(p["file"], []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(p["target"], p["link"]); err != nil {
		t.Fatal(err)
	}
	if os.Getuid() == 0 {
		p["others"] = filepath.Join(parent, "gopi-run-others")
		if err := os.Mkdir(p["others"], 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(p["others"], 4321, 4321); err != nil {
			t.Fatal(err)
		}
	}
	for k := range p {
		at := old
		if k == "recent" {
			at = recent
		}
		if err := os.Chtimes(p[k], at, at); err != nil && k != "link" {
			t.Fatal(err)
		}
	}
	if err := os.Lchown(p["link"], os.Getuid(), os.Getgid()); err != nil {
		t.Fatal(err)
	}
	return p
}

func checkSwept(t *testing.T, p map[string]string) {
	t.Helper()
	for k, path := range p {
		_, err := os.Lstat(path)
		if gone := errors.Is(err, os.ErrNotExist); gone != (k == "old") {
			t.Errorf("%s (%s): gone %v, want %v", k, path, gone, k == "old")
		}
	}
	if _, err := os.Stat(filepath.Join(p["target"], "inside")); err != nil {
		t.Errorf("the link's target was followed: %v", err)
	}
}

// Earlier runs' kept spill folders are swept once a week old, whether
// the Assembly opened (a sweep in the background, waited for by Close)
// or not; links, files, recent folders and other names are left.
func TestCloseSweepsOldSpillFolders(t *testing.T) {
	fdcheck.Check(t)
	for _, open := range []bool{true, false} {
		t.Run(fmt.Sprintf("open=%v", open), func(t *testing.T) {
			var stderr bytes.Buffer
			s := settings(t)
			s.SpillDir = filepath.Join(t.TempDir(), "gopi-run-own")
			if err := os.MkdirAll(s.SpillDir, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(s.SpillDir, time.Now().Add(-30*24*time.Hour), time.Now().Add(-30*24*time.Hour)); err != nil {
				t.Fatal(err)
			}
			p := spillSiblings(t, s.SpillDir, time.Now())
			a, err := assemble.New(s, env(&stderr))
			if err != nil {
				t.Fatal(err)
			}
			if open {
				if err := a.Open(); err != nil {
					a.Close()
					t.Fatal(err)
				}
				dispose(t, a)
			}
			a.Close()
			checkSwept(t, p)
		})
	}
}

// The sweep reads every name of a busy temporary folder, past what one
// read of the folder returns: among many other names, and when every
// name is a kept folder's.
func TestSweepReadsABusyFolder(t *testing.T) {
	fdcheck.Check(t)
	for _, tc := range []struct{ others, olds int }{{600, 40}, {0, 400}} {
		var stderr bytes.Buffer
		s := settings(t)
		parent := t.TempDir()
		s.SpillDir = filepath.Join(parent, "gopi-run-own")
		for i := range tc.others {
			if err := os.WriteFile(filepath.Join(parent, fmt.Sprintf("some-other-file-with-a-long-name-%04d", i)), nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		old := time.Now().Add(-8 * 24 * time.Hour)
		var olds []string
		for i := range tc.olds {
			d := filepath.Join(parent, fmt.Sprintf("gopi-run-old%03d", i))
			if err := os.Mkdir(d, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(d, old, old); err != nil {
				t.Fatal(err)
			}
			olds = append(olds, d)
		}
		a, err := assemble.New(s, env(&stderr))
		if err != nil {
			t.Fatal(err)
		}
		a.Close()
		for _, d := range olds {
			if _, err := os.Lstat(d); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s not swept: %v", d, err)
			}
		}
		left, err := os.ReadDir(parent)
		if err != nil || len(left) != tc.others {
			t.Errorf("%d entries left, want the %d other files: %v", len(left), tc.others, err)
		}
	}
}

// Without sandbox settings there is no guard; with them the guard's
// private temporary folder is under the spill folder, and the open
// session file is one no command may write; Close stops the guard, so
// no command starts after it.
func TestGuardOfTheSettings(t *testing.T) {
	fdcheck.Check(t)
	var stderr bytes.Buffer
	s := settings(t)
	a, err := assemble.Build(s, env(&stderr))
	if err != nil {
		t.Fatal(err)
	}
	if a.Guard() != nil {
		t.Errorf("a guard without sandbox settings: %v", a.Guard())
	}
	dispose(t, a)
	a.Close()

	s = settings(t)
	home := sandbox.RealPath(s.Home)
	s.Sandbox = &assemble.SandboxSettings{Policy: sandbox.Policy{Mode: sandbox.WorkspaceWrite, Writable: []string{home}}, Origin: "--sandbox", Explicit: true}
	stderr.Reset()
	e := env(&stderr)
	e.SandboxProbe = func() (int, error) { return 7, nil }
	b, err := assemble.Build(s, e)
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	defer func() {
		if !closed {
			b.Close()
		}
	}()
	g := b.Guard()
	if g.Mode() != sandbox.WorkspaceWrite {
		t.Fatalf("guard mode %v", g.Mode())
	}
	if got := g.Policy().TempDir; got != filepath.Join(sandbox.RealPath(filepath.Dir(s.SpillDir)), "spill", "tmp") {
		t.Errorf("guard temp folder %q, want spill/tmp", got)
	}
	if err := g.Permit("write", sandbox.OpWrite, filepath.Join(home, "notes.txt")); err != nil {
		t.Errorf("a write under a writable folder: %v", err)
	}
	if err := g.Permit("write", sandbox.OpWrite, b.File()); err == nil {
		t.Errorf("the session file %s may be written by a tool", b.File())
	}
	if strings.Contains(stderr.String(), "sandbox") {
		t.Errorf("stderr: %s", stderr.String())
	}
	dispose(t, b)
	b.Close()
	closed = true
	if _, err := g.Start(sandbox.Command{Path: "/bin/true", Args: []string{"true"}, Dir: home}); !errors.Is(err, sandbox.ErrClosed) {
		t.Errorf("a command started after Close: %v, want the guard closed", err)
	}
}
