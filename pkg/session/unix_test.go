//go:build unix

package session

import (
	"errors"
	"gopi/internal/fdcheck"
	"gopi/pkg/ai"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
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

// Regression: a session path naming a FIFO blocked the open until a
// writer came (forever); a folder or a device was read as a session with
// a bad header. Each is refused at once, named, and nothing is created.
func TestNotRegularRefused(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.jsonl")
	mustDo(t, unix.Mkfifo(fifo, 0o600))
	folder := filepath.Join(dir, "folder.jsonl")
	mustDo(t, os.Mkdir(folder, 0o700))
	link := filepath.Join(dir, "link.jsonl")
	mustDo(t, os.Symlink(fifo, link))
	tests := []struct{ path, kind string }{
		{fifo, "a named pipe (FIFO)"},
		{link, "a named pipe (FIFO)"},
		{folder, "a folder"},
		{"/dev/null", "a character device"},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.path), func(t *testing.T) {
			opens := map[string]func() error{
				"Open":         func() error { _, err := Open(tt.path, Options{}); return err },
				"OpenOrCreate": func() error { _, err := OpenOrCreate(tt.path, "/p", Options{}); return err },
				"ReadFile":     func() error { _, err := ReadFile(tt.path); return err },
				"ReadHeader":   func() error { _, err := ReadHeader(tt.path); return err },
			}
			for name, open := range opens {
				err := open()
				var ne *NotRegularError
				if !errors.As(err, &ne) || !errors.Is(err, ErrNotRegular) || ne.Kind != tt.kind {
					t.Errorf("%s: %v, want a NotRegularError %q", name, err, tt.kind)
					continue
				}
				if want := tt.path + " is " + tt.kind; !strings.Contains(err.Error(), want) {
					t.Errorf("%s: %q does not say %q", name, err, want)
				}
			}
			mustNotExist(t, LockPath(tt.path))
		})
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*.lock")); len(left) != 0 {
		t.Errorf("lock files made: %v", left)
	}
}

// A FIFO among a folder's sessions is skipped by List (and so by -c),
// which read every header and blocked on it.
func TestListSkipsFIFO(t *testing.T) {
	root := t.TempDir()
	s, err := NewSession(root, "/p", testOptions())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(t.Context(), MessageEntry("", ai.UserText("hi", 1))); err != nil {
		t.Fatal(err)
	}
	s.Close()
	mustDo(t, unix.Mkfifo(filepath.Join(SessionDir(root, "/p"), "9999-fifo.jsonl"), 0o600))
	list, err := List(root, "/p")
	if err != nil || len(list) != 1 || list[0].Path != s.Path() {
		t.Fatalf("List: %v %+v", err, list)
	}
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
