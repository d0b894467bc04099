package session

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A cwd's folder is named as pi names it.
func TestSessionDirNames(t *testing.T) {
	tests := map[string]string{
		"/home/u/p":    "--home-u-p--",
		"home/u/p":     "--home-u-p--",
		`\work\x`:      "--work-x--",
		`C:\work\x`:    "--C--work-x--",
		"/a:b/c":       "--a-b-c--",
		"//double/sep": "---double-sep--",
	}
	for cwd, want := range tests {
		if got := SessionDir("/root", cwd); got != filepath.Join("/root", want) {
			t.Errorf("SessionDir(%q) = %q, want %q", cwd, got, want)
		}
	}
}

// writeSessionAt writes a session file with header id and sets its
// modification time.
func writeSessionAt(t *testing.T, path, id string, mod time.Time) {
	t.Helper()
	h := `{"type":"session","version":3,"id":"` + id + `","timestamp":"2026-03-01T10:00:00.000Z","cwd":"/p"}` + "\n"
	mustDo(t, os.WriteFile(path, []byte(h), 0o600))
	mustDo(t, os.Chtimes(path, mod, mod))
}

// Resolve finds a session by its path or by a prefix of the id in its
// name: none, one, or several (listed, sorted).
func TestResolveByIDPrefix(t *testing.T) {
	root := t.TempDir()
	dir := SessionDir(root, "/p")
	mustDo(t, os.MkdirAll(dir, 0o700))
	for _, name := range []string{"t1_abc123.jsonl", "t2_abd456.jsonl", "t3_abd789.jsonl", "t5_a*b.jsonl"} {
		writeSessionAt(t, filepath.Join(dir, name), "x", time.Now())
	}
	tests := []struct {
		ref, want string
		err       error
	}{
		{"abc", "t1_abc123.jsonl", nil},
		{"abd4", "t2_abd456.jsonl", nil},
		{"abd", "", ErrAmbiguous},
		{"a*", "t5_a*b.jsonl", nil},
		{"qq", "", ErrNotFound},
		{"", "", ErrNotFound},
	}
	for _, tt := range tests {
		got, err := Resolve(root, tt.ref)
		switch {
		case tt.err != nil && !errors.Is(err, tt.err):
			t.Errorf("Resolve(%q) = %q, %v; want %v", tt.ref, got, err, tt.err)
		case tt.err == nil && (err != nil || got != filepath.Join(dir, tt.want)):
			t.Errorf("Resolve(%q) = %q, %v; want %s", tt.ref, got, err, tt.want)
		}
	}
	_, err := Resolve(root, "abd")
	if want := "matches 2 sessions (" + filepath.Join(dir, "t2_abd456.jsonl") + ", " + filepath.Join(dir, "t3_abd789.jsonl") + ")"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("ambiguous: %v, want %q", err, want)
	}
	path := filepath.Join(dir, "t1_abc123.jsonl")
	if got, err := Resolve(root, path); err != nil || got != path {
		t.Errorf("Resolve of a path: %q, %v", got, err)
	}
}
