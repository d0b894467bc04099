package session

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"gopi/internal/wintest"
)

func tempDir(t *testing.T) string { return wintest.TempDir(t) }

// A cwd with a drive letter and backslashes names its folder as pi 1.6
// names it on Windows (the expectations are pi's getDefaultSessionDir run
// with node's win32 path rules).
func TestWindowsSessionDirAsPi(t *testing.T) {
	root := `C:\Users\me\.pi\agent\sessions`
	for cwd, want := range map[string]string{
		`C:\Users\me\proj`:      `C:\Users\me\.pi\agent\sessions\--C--Users-me-proj--`,
		`c:\work\a b\x.y`:       `C:\Users\me\.pi\agent\sessions\--c--work-a b-x.y--`,
		`D:\`:                   `C:\Users\me\.pi\agent\sessions\--D----`,
		`\\server\share\repo`:   `C:\Users\me\.pi\agent\sessions\---server-share-repo--`,
		`C:\Users\me\mixed\dir`: `C:\Users\me\.pi\agent\sessions\--C--Users-me-mixed-dir--`,
	} {
		if got := SessionDir(root, cwd); got != want {
			t.Errorf("SessionDir(%q) = %q, want %q", cwd, got, want)
		}
	}
}

// The LockFileEx lock stops a second writer but no reader: the locked
// byte lies past the content, so the file reads whole through any
// handle while it is held, and the sidecar, removed while held open, is
// gone after Close.
func TestWindowsLockLeavesContentReadable(t *testing.T) {
	path := filepath.Join(tempDir(t), "s.jsonl")
	writeGoldenSession(t, path)
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(path, Options{PID: 77})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(path, Options{}); !errors.Is(err, ErrLocked) {
		t.Fatalf("second open while held: %v", err)
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != string(want) {
		t.Fatalf("reading the held session: %v (%d bytes, want %d)", err, len(got), len(want))
	}
	if _, err := ReadHeader(path); err != nil {
		t.Errorf("header of the held session: %v", err)
	}
	if _, err := os.Stat(LockPath(path)); err != nil {
		t.Errorf("no sidecar while held: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(LockPath(path)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("sidecar after close: %v", err)
	}
	s2, err := Open(path, Options{})
	if err != nil {
		t.Fatalf("open after close: %v", err)
	}
	s2.Close()
}
