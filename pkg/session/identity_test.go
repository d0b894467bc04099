package session

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopi/pkg/ai"
)

// mustRead returns a file's bytes.
func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Regression: the lock was a sidecar named after the path, so a symlink
// or a hard link to a locked session got a lock of its own and two
// writers appended to one file.
func TestLockBelongsToTheFile(t *testing.T) {
	tests := []struct {
		name    string
		link    func(t *testing.T, target, link string) // makes link name target's file
		wantPID int                                     // what the refusal names
	}{
		{"symlink", func(t *testing.T, target, link string) { mustDo(t, os.Symlink(target, link)) }, 4242},
		{"relative symlink", func(t *testing.T, target, link string) { mustDo(t, os.Symlink(filepath.Base(target), link)) }, 4242},
		{"hard link", func(t *testing.T, target, link string) { mustDo(t, os.Link(target, link)) }, 0},
		{"symlinked folder", func(t *testing.T, target, link string) {
			dir := filepath.Join(filepath.Dir(link), "linkdir")
			mustDo(t, os.Symlink(filepath.Dir(target), dir))
			mustDo(t, os.Symlink(filepath.Join(dir, filepath.Base(target)), link))
		}, 4242},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "s.jsonl")
			writeGoldenSession(t, path)
			link := filepath.Join(dir, "other.jsonl")
			tt.link(t, path, link)
			before := mustRead(t, path)

			a, err := Open(path, Options{PID: 4242})
			if err != nil {
				t.Fatal(err)
			}
			_, err = Open(link, Options{PID: 7})
			var le *LockedError
			if !errors.As(err, &le) || le.PID != tt.wantPID || le.Path != link {
				t.Fatalf("open through %s: %v, want a LockedError naming pid %d", tt.name, err, tt.wantPID)
			}
			want := "locked by another gopi process"
			if tt.wantPID != 0 {
				want = fmt.Sprintf("locked by process %d", tt.wantPID)
			}
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not say %q", err, want)
			}
			// and the other way round: the link's holder keeps the name out
			a.Close()
			b, err := Open(link, Options{PID: 4343})
			if err != nil {
				t.Fatalf("open through %s after close: %v", tt.name, err)
			}
			if _, err := Open(path, Options{}); !errors.Is(err, ErrLocked) {
				t.Fatalf("open of the name while the %s is held: %v", tt.name, err)
			}
			b.Close()
			if !bytes.Equal(mustRead(t, path), before) {
				t.Error("the session file changed")
			}
			left, _ := filepath.Glob(filepath.Join(dir, "*.lock"))
			if len(left) != 0 {
				t.Errorf("lock files left behind: %v", left)
			}
		})
	}
}

func mustDo(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// The flock on the session file holds across processes: a child opening
// a hard link to a session this process writes is refused.
func TestHardLinkLockTwoProcesses(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	writeGoldenSession(t, path)
	link := filepath.Join(dir, "hard.jsonl")
	mustDo(t, os.Link(path, link))
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	out, err := childCmd(t, "lock", link).CombinedOutput()
	var ee interface{ ExitCode() int }
	if !errors.As(err, &ee) || ee.ExitCode() != 3 || !strings.Contains(string(out), "locked by another gopi process") {
		t.Fatalf("child: %v: %s", err, out)
	}
}

// A new session has no file until its first append; from then on the
// file itself is locked too, so a hard link made afterwards is refused,
// and a session created through a symlinked folder shares the real
// folder's lock.
func TestCreateLocksTheFileOnceItExists(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	mustDo(t, os.Mkdir(real, 0o700))
	mustDo(t, os.Symlink(real, filepath.Join(dir, "via")))
	s, err := Create(filepath.Join(dir, "via", "s.jsonl"), "/p", Options{PID: 4242})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	path := filepath.Join(real, "s.jsonl")
	if _, err := Create(path, "/p", Options{}); !errors.Is(err, ErrLocked) {
		t.Fatalf("a second Create of the same file before its first append: %v", err)
	}
	if _, err := s.Append(t.Context(), MessageEntry("", ai.UserText("hi", 1))); err != nil {
		t.Fatal(err)
	}
	var le *LockedError
	if _, err := Open(path, Options{}); !errors.As(err, &le) || le.PID != 4242 {
		t.Fatalf("open through the real folder: %v", err)
	}
	link := filepath.Join(dir, "hard.jsonl")
	mustDo(t, os.Link(path, link))
	if _, err := Open(link, Options{}); !errors.Is(err, ErrLocked) {
		t.Fatalf("open of a hard link made after the first append: %v", err)
	}
}
