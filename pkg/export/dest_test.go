package export_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopi/pkg/export"
)

func TestDestNames(t *testing.T) {
	wd := t.TempDir()
	sess := filepath.Join(t.TempDir(), "2026-03-01T10-00-00-000Z_abc.jsonl")
	cases := []struct{ output, want string }{
		{"-", ""},
		{"", filepath.Join(wd, "gopi-session-2026-03-01T10-00-00-000Z_abc.html")}, // pi's name, in wd
		{"page.html", filepath.Join(wd, "page.html")},
		{filepath.Join(wd, "abs.html"), filepath.Join(wd, "abs.html")},
	}
	for _, c := range cases {
		if got, err := export.Dest(wd, "-o", c.output, sess); err != nil || got != c.want {
			t.Errorf("Dest(%q) = %q, %v; want %q", c.output, got, err, c.want)
		}
	}
	// an existing page that is no session is replaced
	old := filepath.Join(wd, "old.html")
	_ = os.WriteFile(old, []byte("<html>\n"), 0o600)
	if got, err := export.Dest(wd, "-o", old, sess); err != nil || got != old {
		t.Errorf("existing page: %q %v", got, err)
	}
}

func TestDestRefusals(t *testing.T) {
	wd := t.TempDir()
	sess := filepath.Join(wd, "s.jsonl")
	header := `{"type":"session","version":3,"id":"x","timestamp":"2026-03-01T10:00:00.000Z","cwd":"/p"}` + "\n"
	_ = os.WriteFile(sess, []byte(header), 0o600)
	other := filepath.Join(wd, "other.jsonl")
	_ = os.WriteFile(other, []byte(header), 0o600)
	named := filepath.Join(wd, "named.html") // mentions "session" on its first line, yet no header
	_ = os.WriteFile(named, []byte(`{"session": 1`+"\n"), 0o600)
	_ = os.Mkdir(filepath.Join(wd, "dir"), 0o700)
	cases := []struct{ output, want string }{
		{"nofolder/p.html", "-o " + filepath.Join(wd, "nofolder/p.html") + ": folder " + filepath.Join(wd, "nofolder") + " does not exist"},
		{"dir", "-o " + filepath.Join(wd, "dir") + " is a folder: give a file name"},
		{"s.jsonl", "-o " + sess + " is the session file being exported: give another file name"},
		{"other.jsonl", "-o " + other + " is a session file (its first line is a session header): give another file name"},
	}
	for _, c := range cases {
		got, err := export.Dest(wd, "-o", c.output, sess)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || got != "" {
			t.Errorf("Dest(%q) = %q, %v; want %q", c.output, got, err, c.want)
		}
	}
	if _, err := export.Dest(wd, "outputPath", "dir", sess); err == nil || !strings.HasPrefix(err.Error(), "outputPath ") {
		t.Errorf("flag named: %v", err)
	}
	if got, err := export.Dest(wd, "-o", named, sess); err != nil || got != named {
		t.Errorf("a file naming a session without a header: %q %v", got, err)
	}
}

// A first line longer than what is looked at is no session header; a
// short file without a line break is read whole.
func TestDestLooksAtTheFirstLineOnly(t *testing.T) {
	wd := t.TempDir()
	sess := filepath.Join(wd, "s.jsonl")
	long := filepath.Join(wd, "long.html")
	_ = os.WriteFile(long, []byte(`{"type":"session","version":3,"id":"x","timestamp":"2026-03-01T10:00:00.000Z","cwd":"/p","pad":"`+strings.Repeat("x", 70<<10)+`"}`+"\n"), 0o600)
	if got, err := export.Dest(wd, "-o", long, sess); err != nil || got != long {
		t.Errorf("long first line: %q %v", got, err)
	}
	short := filepath.Join(wd, "short.html")
	_ = os.WriteFile(short, []byte(`{"type":"session","version":3,"id":"x","timestamp":"2026-03-01T10:00:00.000Z","cwd":"/p"}`), 0o600)
	if _, err := export.Dest(wd, "-o", short, sess); err == nil {
		t.Error("a header without a line break is replaced")
	}
}
