package invocation

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/mode"
)

// A session is read by its file or a prefix of its id among the working
// folder's; what names none is a usage error saying what to give.
func TestReadSessionByFileOrID(t *testing.T) {
	p, cwd, out, errOut := proc(t, fauxSettings(t, ""))
	if err := run(p, RunOptions{Mode: mode.JSON}, "first"); err != nil {
		t.Fatal(err)
	}
	r := oneResult(t, out.String())
	errOut.Reset()
	root, got, err := p.Sessions("")
	if err != nil || got != cwd || root != filepath.Join(p.Getenv("GOPI_HOME"), "sessions") || !strings.HasPrefix(r.Session.File, root) {
		t.Fatalf("root %q cwd %q: %v", root, got, err)
	}
	for _, ref := range []string{r.Session.File, r.Session.ID[:8]} {
		f, err := p.ReadSession(ref, "")
		if err != nil || f.Path != r.Session.File || len(f.Entries) == 0 {
			t.Errorf("%s: %v", ref, err)
		}
	}
	if _, err := p.ReadSession("zzzz", ""); ClassOf(err) != ai.ClassUsage || !strings.Contains(err.Error(), "gopi session list shows the sessions of this folder") {
		t.Errorf("an unknown id: %v", err)
	}
	missing := filepath.Join(cwd, "missing.jsonl")
	if _, err := p.ReadSession(missing, ""); ClassOf(err) != ai.ClassUsage || !strings.Contains(err.Error(), "session "+missing+": no such file or folder: give a session file or id") {
		t.Errorf("a missing file: %v", err)
	}
	if _, err := p.ReadSession(cwd+"/", ""); ClassOf(err) != ai.ClassUsage || !strings.Contains(err.Error(), "is not a file (a folder?)") {
		t.Errorf("a folder: %v", err)
	}
	bad := filepath.Join(cwd, "bad.jsonl")
	write(t, bad, "not a session\n")
	if _, err := p.ReadSession(bad, ""); ClassOf(err) != ai.ClassUsage {
		t.Errorf("not a session: %v", err)
	}
	if _, _, err := p.Sessions(missing); ClassOf(err) != ai.ClassUsage {
		t.Errorf("a missing --cwd: %v", err)
	}
	if _, err := p.ReadSession("x", missing); ClassOf(err) != ai.ClassUsage {
		t.Errorf("a missing --cwd: %v", err)
	}
	if errOut.Len() != 0 {
		t.Errorf("stderr %q", errOut)
	}
}

// A damaged session is read with its warnings said on stderr.
func TestReadSessionSaysItsWarnings(t *testing.T) {
	p, _, out, errOut := proc(t, fauxSettings(t, ""))
	if err := run(p, RunOptions{Mode: mode.JSON}, "first"); err != nil {
		t.Fatal(err)
	}
	file := oneResult(t, out.String()).Session.File
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	first, rest, _ := strings.Cut(string(data), "\n")
	write(t, file, first+"\n{not json\n"+rest)
	errOut.Reset()
	f, err := p.ReadSession(file, "")
	if err != nil || len(f.Warnings) == 0 || strings.Count(errOut.String(), "gopi: warning: ") != len(f.Warnings) {
		t.Fatalf("%v: warnings %v, stderr %q", err, f.Warnings, errOut)
	}
}
