package session

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"gopi/internal/fdcheck"
	"gopi/pkg/ai"
)

const v1Session = `{"type":"session","id":"u","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}` + "\n" +
	`{"type":"message","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"a","timestamp":1}}` + "\n"

const v2Session = `{"type":"session","version":2,"id":"u","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}` + "\n" +
	`{"type":"message","id":"00000001","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"a","timestamp":1}}` + "\n"

// An Open that fails leaves the file as it was, keeps no descriptor and
// releases the lock at once.
func TestFailedOpenReleasesEverything(t *testing.T) {
	tests := []struct {
		name    string
		data    *string                                    // the file; nil: none
		openErr func(t *testing.T, path string) error      // done by Options.OpenFile before it opens
		want    func(t *testing.T, path string, err error) // the error Open returns
	}{
		{"missing file", nil, nil, func(t *testing.T, path string, err error) {
			if !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), path) {
				t.Errorf("Open: %v, want ErrNotExist naming the file", err)
			}
		}},
		{"version 1 file", ptr(v1Session), nil, func(t *testing.T, path string, err error) {
			if !errors.Is(err, ErrOldVersion) || !strings.Contains(err.Error(), "version 1") {
				t.Errorf("Open: %v, want ErrOldVersion", err)
			}
		}},
		{"invalid header", ptr("{nope\n"), nil, func(t *testing.T, path string, err error) {
			if !errors.Is(err, ErrInvalidHeader) {
				t.Errorf("Open: %v, want ErrInvalidHeader", err)
			}
		}},
		{"opening for append fails", ptr(v2Session), func(*testing.T, string) error { return syscall.EMFILE },
			func(t *testing.T, path string, err error) {
				if !errors.Is(err, syscall.EMFILE) || !strings.Contains(err.Error(), "open session "+path) {
					t.Errorf("Open: %v, want EMFILE naming the file", err)
				}
			}},
		{"replaced between read and open for append", ptr(v2Session), func(t *testing.T, path string) error {
			mustDo(t, os.WriteFile(path+".new", []byte(v2Session), 0o600))
			mustDo(t, os.Rename(path+".new", path))
			return nil
		}, func(t *testing.T, path string, err error) {
			var ce *ChangedError
			if !errors.As(err, &ce) || ce.Change != ChangeReplaced {
				t.Errorf("Open: %v, want a ChangedError %q", err, ChangeReplaced)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fdcheck.Check(t)
			path := filepath.Join(t.TempDir(), "s.jsonl")
			if tt.data != nil {
				mustDo(t, os.WriteFile(path, []byte(*tt.data), 0o600))
			}
			opts := testOptions()
			if tt.openErr != nil {
				opts.OpenFile = func(name string, flag int, perm os.FileMode) (WriteFile, error) {
					if err := tt.openErr(t, name); err != nil {
						return nil, err
					}
					return os.OpenFile(name, flag, perm)
				}
			}
			s, err := Open(path, opts)
			if err == nil {
				s.Close()
				t.Fatal("Open succeeded")
			}
			tt.want(t, path, err)
			if tt.data == nil {
				mustNotExist(t, path)
				mustNotExist(t, LockPath(path))
				return
			}
			if tt.openErr == nil {
				mustEqual(t, path, []byte(*tt.data))
			}
			mustNotExist(t, LockPath(path))
			if tt.name != "version 1 file" && tt.name != "invalid header" {
				mustBeUnlocked(t, path)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// Version 2 files are appended to as they are; the next entry is v3-shaped.
func TestOpenVersion2(t *testing.T) {
	fdcheck.Check(t)
	path := filepath.Join(t.TempDir(), "s.jsonl")
	mustDo(t, os.WriteFile(path, []byte(v2Session), 0o600))
	s, err := Open(path, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if w := s.Warnings(); len(s.Entries()) != 1 || len(w) != 1 || w[0].Kind != WarnMigrated {
		t.Fatalf("%d entries, warnings %v", len(s.Entries()), s.Warnings())
	}
	if _, err := s.Append(t.Context(), MessageEntry("00000001", ai.UserText("b", 2))); err != nil {
		t.Fatal(err)
	}
	f, err := ReadFile(path)
	if err != nil || len(f.Entries) != 2 || f.Version != 2 {
		t.Fatalf("reread: %v, %+v", err, f)
	}
}

// A store refused the lock keeps nothing open.
func TestOpenOfALockedSessionKeepsNothingOpen(t *testing.T) {
	fdcheck.Check(t)
	path := filepath.Join(t.TempDir(), "s.jsonl")
	writeGoldenSession(t, path)
	a, err := Open(path, Options{PID: 4242})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	for range 3 {
		mustBeLockedBy(t, path, 4242)
	}
}

// Close reports what failed while closing, and releases the lock anyway.
func TestCloseReportsErrors(t *testing.T) {
	t.Run("session file", func(t *testing.T) {
		fdcheck.Check(t)
		log := diskLog{failClose: syscall.EIO}
		path := filepath.Join(t.TempDir(), "s.jsonl")
		s, err := Create(path, "/p", log.options())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Append(t.Context(), MessageEntry("", ai.UserText("one", 1))); err != nil {
			t.Fatal(err)
		}
		err = s.Close()
		if !errors.Is(err, syscall.EIO) || !strings.Contains(err.Error(), "close session "+path) {
			t.Fatalf("Close: %v, want EIO naming the file", err)
		}
		mustBeUnlocked(t, path)
	})
	t.Run("lock file", func(t *testing.T) {
		fdcheck.Check(t)
		path := filepath.Join(t.TempDir(), "s.jsonl")
		writeGoldenSession(t, path)
		opts := testOptions()
		var sidecar *os.File
		opts.ops.openLock = func(name string, flag int, perm os.FileMode) (*os.File, error) {
			f, err := os.OpenFile(name, flag, perm)
			sidecar = f
			return f, err
		}
		s, err := Open(path, opts)
		if err != nil {
			t.Fatal(err)
		}
		sidecar.Close() // so that the store's close of it fails
		if err := s.Close(); !errors.Is(err, os.ErrClosed) {
			t.Fatalf("Close: %v, want the lock file's close error", err)
		}
		mustBeUnlocked(t, path)
	})
	t.Run("lock file already removed", func(t *testing.T) {
		fdcheck.Check(t)
		path := filepath.Join(t.TempDir(), "s.jsonl")
		s := storeWithEntries(t, path, "created")
		mustDo(t, os.Remove(LockPath(path)))
		if err := s.Close(); err != nil {
			t.Fatalf("Close: %v, want nil: the lock file is gone as it should be", err)
		}
		mustBeUnlocked(t, path)
	})
	t.Run("lock file cannot be removed", func(t *testing.T) {
		fdcheck.Check(t)
		path := filepath.Join(t.TempDir(), "s.jsonl")
		s := storeWithEntries(t, path, "created")
		lock := LockPath(path)
		mustDo(t, os.Remove(lock))
		mustDo(t, os.MkdirAll(filepath.Join(lock, "x"), 0o700))
		err := s.Close()
		if err == nil || !strings.Contains(err.Error(), "remove lock "+lock) {
			t.Fatalf("Close: %v, want the failed removal of %s", err, lock)
		}
		mustDo(t, os.RemoveAll(lock))
		mustBeUnlocked(t, path)
	})
}

// A write that stores fewer bytes than asked without an error is a
// failure: the entry is not all on disk.
func TestShortWrite(t *testing.T) {
	fdcheck.Check(t)
	path := filepath.Join(t.TempDir(), "s.jsonl")
	opts := testOptions()
	opts.OpenFile = func(name string, flag int, perm os.FileMode) (WriteFile, error) {
		f, err := os.OpenFile(name, flag, perm)
		return &shortFile{File: f}, err
	}
	s, err := Create(path, "/p", opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = s.Append(t.Context(), MessageEntry("", ai.UserText("one", 1)))
	if err == nil || !strings.Contains(err.Error(), "short write") {
		t.Fatalf("append: %v, want a short write", err)
	}
	if _, err := s.Append(t.Context(), MessageEntry("", ai.UserText("two", 1))); !errors.Is(err, ErrBroken) {
		t.Errorf("append after a short write: %v, want ErrBroken", err)
	}
}

// shortFile writes half of what it is given and says nothing is wrong.
type shortFile struct{ *os.File }

func (f *shortFile) Write(p []byte) (int, error) { return f.File.Write(p[:len(p)/2]) }

// After a torn tail the first append writes one newline, the next none:
// the file holds no blank line.
func TestOneNewlineAfterATornTail(t *testing.T) {
	fdcheck.Check(t)
	path := filepath.Join(t.TempDir(), "s.jsonl")
	writeGoldenSession(t, path)
	appendRaw(t, path, `{"type":"message","id":"torn`)
	before := mustRead(t, path)
	s, err := Open(path, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	parent := "0000000b"
	for range 3 {
		e, err := s.Append(t.Context(), MessageEntry(parent, ai.UserText("next", 1)))
		if err != nil {
			t.Fatal(err)
		}
		parent = e.ID
	}
	got := mustRead(t, path)
	added := string(got[len(before):])
	if !strings.HasPrefix(added, "\n{") || strings.Count(added, "\n") != 4 || strings.Contains(added, "\n\n") {
		t.Errorf("appended %q, want a newline, then three lines", added)
	}
}

// An entry that cannot be encoded is refused before anything is written,
// and the store goes on.
func TestUnencodableEntry(t *testing.T) {
	fdcheck.Check(t)
	path := filepath.Join(t.TempDir(), "s.jsonl")
	s := storeWithEntries(t, path, "created")
	defer s.Close()
	before := mustRead(t, path)
	bad := Entry{Type: TypeCustomMessage, ParentID: Ref(s.Entries()[2].ID), CustomType: "x",
		Content: []ai.Content{ai.ToolCallContent("c", "n", []byte("{not json"))}}
	if e, err := s.Append(t.Context(), bad); err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("append of an unencodable entry: %+v, %v; want an error naming the file", e, err)
	}
	mustEqual(t, path, before)
	if _, err := s.Append(t.Context(), MessageEntry(s.Entries()[2].ID, ai.UserText("fine", 1))); err != nil {
		t.Fatalf("append after the refusal: %v", err)
	}
}

// A file store checks entries as the memory store does, writing nothing
// it refuses.
func TestFileStoreRefusesBadEntries(t *testing.T) {
	fdcheck.Check(t)
	path := filepath.Join(t.TempDir(), "s.jsonl")
	s := storeWithEntries(t, path, "created")
	defer s.Close()
	before := mustRead(t, path)
	id := s.Entries()[0].ID
	for _, tt := range []struct {
		e    Entry
		want error
	}{
		{Entry{Type: TypeLabel, ID: id, ParentID: Ref(id)}, ErrDuplicateID},
		{MessageEntry("nope0000", ai.UserText("x", 1)), ErrMissingParent},
	} {
		if _, err := s.Append(t.Context(), tt.e); !errors.Is(err, tt.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("append: %v, want %v naming the file", err, tt.want)
		}
	}
	mustEqual(t, path, before)
	if len(s.Entries()) != 3 {
		t.Errorf("%d entries, want 3", len(s.Entries()))
	}
}

// A failed append's message names the file once.
func TestAppendErrorNamesTheFileOnce(t *testing.T) {
	for _, how := range []string{"changed", "disk error"} {
		t.Run(how, func(t *testing.T) {
			fdcheck.Check(t)
			path := filepath.Join(t.TempDir(), "s.jsonl")
			opts := testOptions()
			if how == "disk error" {
				opts.OpenFile = func(name string, flag int, perm os.FileMode) (WriteFile, error) {
					f, err := os.OpenFile(name, flag, perm)
					return &failFile{WriteFile: f, failSync: 1}, err
				}
			}
			s, err := Create(path, "/p", opts)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if how == "changed" {
				mustDo(t, os.WriteFile(path, nil, 0o600))
			}
			_, err = s.Append(t.Context(), MessageEntry("", ai.UserText("one", 1)))
			if err == nil || strings.Count(err.Error(), path) != 1 {
				t.Fatalf("append: %v, want an error naming %s once", err, path)
			}
		})
	}
}
