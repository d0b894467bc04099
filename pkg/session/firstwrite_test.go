package session

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"gopi/internal/fdcheck"
	"gopi/pkg/ai"
)

// A new session's first append creates its file; if the file cannot be
// created, or another program changes the path in the moment after, the
// append fails saying what happened, the store takes no more appends, and
// Close releases everything it took.
func TestFirstWriteFindsThePathChanged(t *testing.T) {
	tests := []struct {
		name string
		// after runs in place of the file's creation (failing it) or just
		// after it: what another program does in that moment.
		after func(t *testing.T, path string) error
		fails bool // after fails the creation
		want  func(t *testing.T, err error)
		// free: the path can be opened again after Close
		free bool
	}{
		{"create fails", func(*testing.T, string) error { return syscall.ENOSPC }, true,
			func(t *testing.T, err error) {
				if !errors.Is(err, syscall.ENOSPC) {
					t.Errorf("append: %v, want ENOSPC", err)
				}
			}, true},
		{"deleted", func(t *testing.T, path string) error { return os.Remove(path) }, false,
			wantChange(ChangeDeleted), true},
		{"replaced by a folder", func(t *testing.T, path string) error {
			mustDo(t, os.Remove(path))
			return os.Mkdir(path, 0o700)
		}, false, wantChange(ChangeReplaced), false},
		{"replaced by a symlink to itself", func(t *testing.T, path string) error {
			mustDo(t, os.Remove(path))
			return os.Symlink(filepath.Base(path), path)
		}, false, func(t *testing.T, err error) {
			if !errors.Is(err, syscall.ELOOP) {
				t.Errorf("append: %v, want ELOOP", err)
			}
		}, false},
		{"replaced by another file", func(t *testing.T, path string) error {
			mustDo(t, os.WriteFile(path+".new", []byte(otherSession), 0o600))
			return os.Rename(path+".new", path)
		}, false, wantChange(ChangeReplaced), true},
		{"locked through a hard link by another writer", func(t *testing.T, path string) error {
			mustDo(t, os.Link(path, path+".link"))
			f, err := os.Open(path + ".link")
			mustDo(t, err)
			t.Cleanup(func() { f.Close() })
			return unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		}, false, func(t *testing.T, err error) {
			if !errors.Is(err, ErrLocked) {
				t.Errorf("append: %v, want ErrLocked", err)
			}
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fdcheck.Check(t)
			path := filepath.Join(t.TempDir(), "s.jsonl")
			var log diskLog
			opts := log.options()
			open := opts.OpenFile
			opts.OpenFile = func(name string, flag int, perm os.FileMode) (WriteFile, error) {
				if flag&os.O_CREATE != 0 && tt.fails {
					return nil, tt.after(t, name)
				}
				f, err := open(name, flag, perm)
				if err == nil && flag&os.O_CREATE != 0 {
					mustDo(t, tt.after(t, name))
				}
				return f, err
			}
			s, err := Create(path, "/p", opts)
			if err != nil {
				t.Fatal(err)
			}
			_, err = s.Append(t.Context(), MessageEntry("", ai.UserText("one", 1)))
			tt.want(t, err)
			if err != nil && !strings.Contains(err.Error(), path) {
				t.Errorf("append: %v, want an error naming %s", err, path)
			}
			if len(s.Entries()) != 0 {
				t.Errorf("%d entries after the failure", len(s.Entries()))
			}
			// nothing went into a file no longer at the path
			if ev := log.take(); slices.Contains(ev, "write s.jsonl") {
				t.Errorf("the store did %q", ev)
			}
			if _, err := s.Append(t.Context(), MessageEntry("", ai.UserText("two", 2))); !errors.Is(err, ErrBroken) {
				t.Errorf("second append: %v, want ErrBroken", err)
			}
			if err := s.Close(); err != nil {
				t.Errorf("close: %v", err)
			}
			mustNotExist(t, LockPath(path))
			if tt.free {
				mustBeUnlocked(t, path)
			}
		})
	}
}

func wantChange(change string) func(t *testing.T, err error) {
	return func(t *testing.T, err error) {
		t.Helper()
		var ce *ChangedError
		if !errors.As(err, &ce) || ce.Change != change {
			t.Errorf("append: %v, want a ChangedError %q", err, change)
		}
	}
}
