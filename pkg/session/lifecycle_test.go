package session

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"gopi/internal/fdcheck"
	"gopi/pkg/ai"
)

// A new session is on disk only once its first Append returns, and then
// durably: the file's bytes are fsynced, and so are its name in its
// folder and the names of the folders made for it. A crash after that
// Append returned cannot lose the session.
func TestFirstAppendMakesANewSessionDurable(t *testing.T) {
	tests := []struct {
		name string
		// start returns a new store and the folders whose entries its
		// first append must fsync.
		start func(t *testing.T, dir string, opts Options) (*FileStore, []string)
	}{
		{"Create in an existing folder", func(t *testing.T, dir string, opts Options) (*FileStore, []string) {
			s, err := Create(filepath.Join(dir, "s.jsonl"), "/p", opts)
			if err != nil {
				t.Fatal(err)
			}
			return s, []string{dir}
		}},
		{"NewSession making its folders", func(t *testing.T, dir string, opts Options) (*FileStore, []string) {
			root := filepath.Join(dir, "sessions")
			s, err := NewSession(root, "/home/u/p", opts)
			if err != nil {
				t.Fatal(err)
			}
			// the file's folder, and each folder a made folder is in
			return s, []string{filepath.Join(root, "--home-u-p--"), root, dir}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fdcheck.Check(t)
			var log diskLog
			s, dirs := tt.start(t, t.TempDir(), log.options())
			defer s.Close()
			base := filepath.Base(s.Path())
			if ev := log.take(); len(ev) != 0 {
				t.Errorf("Create did %q, want nothing on disk before the first append", ev)
			}
			mustNotExist(t, s.Path())

			first, err := s.Append(t.Context(), MessageEntry("", ai.UserText("one", 1)))
			if err != nil {
				t.Fatal(err)
			}
			ev := log.take()
			mustHappenBefore(t, ev, "write "+base, "fsync "+base)
			for _, d := range dirs {
				mustHappenBefore(t, ev, "create "+base+" 0600", "fsync folder "+d)
				mustHappenBefore(t, ev, "fsync folder "+d, "close folder "+d)
			}
			if want := 3 + 2*len(dirs); len(ev) != want {
				t.Errorf("first append did %q, want %d steps", ev, want)
			}
			if st, err := os.Stat(s.Path()); err != nil || st.Mode().Perm() != 0o600 {
				t.Errorf("session file: %v, %v; want mode 0600", st, err)
			}

			if _, err := s.Append(t.Context(), MessageEntry(first.ID, ai.UserText("two", 2))); err != nil {
				t.Fatal(err)
			}
			if ev, want := log.take(), []string{"write " + base, "fsync " + base}; !slices.Equal(ev, want) {
				t.Errorf("second append did %q, want %q", ev, want)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if ev, want := log.take(), []string{"close " + base}; !slices.Equal(ev, want) {
				t.Errorf("Close did %q, want %q", ev, want)
			}
		})
	}
}

// With NoSync nothing is fsynced, neither the file nor its folder.
func TestNoSyncSkipsEveryFsync(t *testing.T) {
	fdcheck.Check(t)
	var log diskLog
	opts := log.options()
	opts.NoSync = true
	path := filepath.Join(t.TempDir(), "new", "s.jsonl")
	s, err := Create(path, "/p", opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	parent := ""
	for range 2 {
		e, err := s.Append(t.Context(), MessageEntry(parent, ai.UserText("x", 1)))
		if err != nil {
			t.Fatal(err)
		}
		parent = e.ID
	}
	want := []string{"create s.jsonl 0600", "write s.jsonl", "write s.jsonl"}
	if ev := log.take(); !slices.Equal(ev, want) {
		t.Errorf("appends did %q, want %q", ev, want)
	}
}

// A folder that cannot be fsynced fails the first append and breaks the
// store, unless the file system cannot fsync folders at all (EINVAL,
// ENOTSUP): then there is nothing more to do and the session goes on.
func TestFolderFsyncFailure(t *testing.T) {
	tests := []struct {
		name    string
		openErr error // what opening the folder returns
		syncErr error // what fsyncing it returns
		fails   bool
	}{
		{"open fails", syscall.EMFILE, nil, true},
		{"fsync fails", nil, syscall.EIO, true},
		{"file system without folder fsync (EINVAL)", nil, syscall.EINVAL, false},
		{"file system without folder fsync (ENOTSUP)", nil, syscall.ENOTSUP, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fdcheck.Check(t)
			log := diskLog{failDirSync: tt.syncErr}
			opts := log.options()
			if tt.openErr != nil {
				opts.ops.openDir = func(string) (dirHandle, error) { return nil, tt.openErr }
			}
			dir := t.TempDir()
			s, err := Create(filepath.Join(dir, "s.jsonl"), "/p", opts)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			e, err := s.Append(t.Context(), MessageEntry("", ai.UserText("one", 1)))
			if !tt.fails {
				if err != nil {
					t.Fatalf("append: %v", err)
				}
				if _, err := s.Append(t.Context(), MessageEntry(e.ID, ai.UserText("two", 2))); err != nil {
					t.Fatalf("second append: %v", err)
				}
				return
			}
			cause := tt.syncErr
			if cause == nil {
				cause = tt.openErr
			}
			if !errors.Is(err, cause) || !strings.Contains(err.Error(), "fsync folder "+dir) {
				t.Fatalf("append: %v, want the folder's fsync failing with %v", err, cause)
			}
			if len(s.Entries()) != 0 {
				t.Errorf("%d entries after the failure, want 0", len(s.Entries()))
			}
			if _, err := s.Append(t.Context(), MessageEntry("", ai.UserText("again", 2))); !errors.Is(err, ErrBroken) {
				t.Errorf("append after the failure: %v, want ErrBroken", err)
			}
		})
	}
}

// Close releases the session once; a second Close does nothing, not even
// to the lock another store took since, and a closed store appends nothing.
func TestCloseTwiceAndAppendAfterClose(t *testing.T) {
	fdcheck.Check(t)
	path := filepath.Join(t.TempDir(), "s.jsonl")
	s := storeWithEntries(t, path, "created")
	before := mustRead(t, path)
	if err := s.Close(); err != nil {
		t.Fatalf("first close: %v", err)
	}
	next, err := Open(path, Options{PID: 4242})
	if err != nil {
		t.Fatalf("open after close: %v", err)
	}
	defer next.Close()
	if err := s.Close(); err != nil {
		t.Errorf("second close: %v, want nil", err)
	}
	mustBeLockedBy(t, path, 4242)
	_, err = s.Append(t.Context(), MessageEntry(s.Entries()[2].ID, ai.UserText("late", 1)))
	if !errors.Is(err, ErrClosed) || !strings.Contains(err.Error(), path) {
		t.Errorf("append after close: %v, want ErrClosed naming the file", err)
	}
	mustEqual(t, path, before)
	if len(s.Entries()) != 3 {
		t.Errorf("%d entries, want 3", len(s.Entries()))
	}
}

// A new session closed before its first append leaves nothing behind.
func TestCreateThenCloseLeavesNothing(t *testing.T) {
	fdcheck.Check(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	s, err := Create(path, "/p", testOptions())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second close: %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("left behind: %v", ents)
	}
}

// Create never takes over a path that exists, even a dangling symlink,
// and leaves both the path and the lock as they were.
func TestCreateRefusesAnExistingPath(t *testing.T) {
	tests := []struct {
		name string
		make func(t *testing.T, path string)
	}{
		{"a session file", func(t *testing.T, path string) { writeGoldenSession(t, path) }},
		{"an empty file", func(t *testing.T, path string) { mustDo(t, os.WriteFile(path, nil, 0o600)) }},
		{"a dangling symlink", func(t *testing.T, path string) { mustDo(t, os.Symlink("nowhere.jsonl", path)) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fdcheck.Check(t)
			path := filepath.Join(t.TempDir(), "s.jsonl")
			tt.make(t, path)
			before, _ := os.Readlink(path)
			if before == "" {
				before = string(mustRead(t, path))
			}
			s, err := Create(path, "/p", testOptions())
			if err == nil {
				s.Close()
				t.Fatal("Create of an existing path succeeded")
			}
			if !errors.Is(err, os.ErrExist) || !strings.Contains(err.Error(), path) {
				t.Fatalf("Create: %v, want ErrExist naming the path", err)
			}
			after, _ := os.Readlink(path)
			if after == "" {
				after = string(mustRead(t, path))
			}
			if after != before {
				t.Errorf("the path changed: %q, was %q", after, before)
			}
			mustNotExist(t, LockPath(path))
			if tt.name == "a session file" {
				mustBeUnlocked(t, path)
			}
		})
	}
}

// One new session path, two Creates: the second is refused, naming the
// first's process, until the first is closed.
func TestCreateOfALockedPath(t *testing.T) {
	fdcheck.Check(t)
	path := filepath.Join(t.TempDir(), "s.jsonl")
	a, err := Create(path, "/p", Options{PID: 4242})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Create(path, "/p", Options{PID: 7})
	var le *LockedError
	if !errors.As(err, &le) || le.PID != 4242 || b != nil {
		t.Fatalf("second Create: %v, want a LockedError naming 4242", err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	mustBeUnlocked(t, path)
}

// Create of a path in a folder that cannot be made fails naming it.
func TestCreateWhereNoFolderCanBeMade(t *testing.T) {
	fdcheck.Check(t)
	file := filepath.Join(t.TempDir(), "file")
	mustDo(t, os.WriteFile(file, nil, 0o600))
	path := filepath.Join(file, "sub", "s.jsonl")
	s, err := Create(path, "/p", testOptions())
	if err == nil {
		s.Close()
	}
	if !errors.Is(err, syscall.ENOTDIR) || !strings.Contains(err.Error(), "create session "+path) {
		t.Fatalf("Create: %v, want ENOTDIR naming the path", err)
	}
}

// OpenOrCreate creates a missing session and opens an existing one.
func TestOpenOrCreate(t *testing.T) {
	fdcheck.Check(t)
	path := filepath.Join(t.TempDir(), "s.jsonl")
	s, err := OpenOrCreate(path, "/p", testOptions())
	if err != nil {
		t.Fatal(err)
	}
	if h := s.Header(); h.Cwd != "/p" || len(s.Entries()) != 0 {
		t.Errorf("created: header %+v, %d entries", h, len(s.Entries()))
	}
	if _, err := s.Append(t.Context(), MessageEntry("", ai.UserText("one", 1))); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = OpenOrCreate(path, "/other", testOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if h := s.Header(); h.Cwd != "/p" || len(s.Entries()) != 1 {
		t.Errorf("opened: header %+v, %d entries", h, len(s.Entries()))
	}
}
