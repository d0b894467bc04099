package session

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"gopi/internal/fdcheck"
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

// List returns the cwd's session files, newest first (by path for equal
// times), and skips folders, other files, FIFOs and files without a
// session header; Latest is the first of them, and ErrNotFound when
// there is none.
func TestListAndLatest(t *testing.T) {
	fdcheck.Check(t)
	root := t.TempDir()
	if list, err := List(root, "/p"); err != nil || list != nil {
		t.Fatalf("List of a missing folder: %v, %v; want nothing", list, err)
	}
	if _, err := Latest(root, "/p"); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "no session for /p under "+root) {
		t.Fatalf("Latest of a missing folder: %v, want ErrNotFound naming cwd and root", err)
	}
	dir := SessionDir(root, "/p")
	mustDo(t, os.MkdirAll(filepath.Join(dir, "folder.jsonl"), 0o700))
	base := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	writeSessionAt(t, filepath.Join(dir, "old.jsonl"), "old", base)
	writeSessionAt(t, filepath.Join(dir, "b.jsonl"), "b", base.Add(time.Hour))
	writeSessionAt(t, filepath.Join(dir, "c.jsonl"), "c", base.Add(time.Hour))
	writeSessionAt(t, filepath.Join(dir, "notes.txt"), "txt", base.Add(2*time.Hour))
	mustDo(t, os.WriteFile(filepath.Join(dir, "bad.jsonl"), []byte("not json\n"), 0o600))
	mustDo(t, syscall.Mkfifo(filepath.Join(dir, "pipe.jsonl"), 0o600))

	list, err := List(root, "/p")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, in := range list {
		got = append(got, in.Header.ID+"@"+filepath.Base(in.Path))
	}
	if strings.Join(got, " ") != "c@c.jsonl b@b.jsonl old@old.jsonl" {
		t.Errorf("List: %q, want c, b, old", got)
	}
	if in := list[2]; !in.ModTime.Equal(base) || in.Size == 0 {
		t.Errorf("info of old.jsonl: %+v", in)
	}
	latest, err := Latest(root, "/p")
	if err != nil || latest.Path != filepath.Join(dir, "c.jsonl") {
		t.Errorf("Latest: %+v, %v; want c.jsonl", latest, err)
	}

	// a folder that cannot be listed is an error, not an empty list
	if list, err := List(filepath.Join(dir, "old.jsonl"), "/p"); err == nil || !strings.Contains(err.Error(), "list sessions in ") {
		t.Errorf("List under a file: %v, %v; want an error", list, err)
	}
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
