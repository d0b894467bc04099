package session

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopi/pkg/ai"
)

const otherSession = `{"type":"session","version":3,"id":"other","timestamp":"t","cwd":"/"}` + "\n"

// Regression: a session file deleted, replaced or truncated while a
// store had it open still took appends (into the unlinked file, or after
// a hole), and the run reported entries that were in no file at its path.
// Now the next append fails with a ChangedError naming what happened, the
// store refuses every later append, and nothing more reaches the disk.
func TestChangedOnDisk(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, path string) // what another program does
		want   string                          // ChangedError.Change
		says   string                          // in the message
		after  func(t *testing.T, path string, before []byte)
	}{
		{"deleted", func(t *testing.T, path string) { mustDo(t, os.Remove(path)) },
			ChangeDeleted, "was deleted",
			func(t *testing.T, path string, _ []byte) { mustNotExist(t, path) }},
		{"moved away", func(t *testing.T, path string) { mustDo(t, os.Rename(path, path+".old")) },
			ChangeDeleted, "was deleted (or moved away)",
			func(t *testing.T, path string, before []byte) {
				mustNotExist(t, path)
				mustEqual(t, path+".old", before)
			}},
		{"renamed over", func(t *testing.T, path string) {
			mustDo(t, os.WriteFile(path+".tmp", []byte(otherSession), 0o600))
			mustDo(t, os.Rename(path+".tmp", path))
		}, ChangeReplaced, "was replaced by another file",
			func(t *testing.T, path string, _ []byte) { mustEqual(t, path, []byte(otherSession)) }},
		{"deleted and re-created empty", func(t *testing.T, path string) {
			mustDo(t, os.Remove(path))
			mustDo(t, os.WriteFile(path, nil, 0o600))
		}, ChangeReplaced, "was replaced by another file",
			// never an entry without its header
			func(t *testing.T, path string, _ []byte) { mustEqual(t, path, nil) }},
		{"truncated", func(t *testing.T, path string) { mustDo(t, os.Truncate(path, 100)) },
			ChangeTruncated, "was truncated from ",
			func(t *testing.T, path string, before []byte) { mustEqual(t, path, before[:100]) }},
		{"appended by another writer", func(t *testing.T, path string) { appendRaw(t, path, "{\"type\":\"custom\"}\n") },
			ChangeGrown, "was grown from ",
			func(t *testing.T, path string, before []byte) {
				mustEqual(t, path, append(before, "{\"type\":\"custom\"}\n"...))
			}},
	}
	for _, tt := range tests {
		for _, how := range []string{"opened", "created"} {
			t.Run(tt.name+"/"+how, func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "s.jsonl")
				s := storeWithEntries(t, path, how)
				defer s.Close()
				n, before := len(s.Entries()), mustRead(t, path)
				tt.change(t, path)

				_, err := s.Append(t.Context(), MessageEntry(s.Entries()[n-1].ID, ai.UserText("after", 1)))
				var ce *ChangedError
				if !errors.As(err, &ce) || !errors.Is(err, ErrChanged) || ce.Change != tt.want {
					t.Fatalf("append after the file was %s: %v, want a ChangedError %q", tt.name, err, tt.want)
				}
				if msg := err.Error(); !strings.Contains(msg, path+" "+tt.says) || !strings.Contains(msg, "gopi stopped writing to it") {
					t.Errorf("message %q does not name the file and say %q", msg, tt.says)
				}
				if ce.EntriesLost() != (tt.want != ChangeGrown) {
					t.Errorf("EntriesLost() = %v", ce.EntriesLost())
				}
				_, err = s.Append(t.Context(), MessageEntry(s.Entries()[n-1].ID, ai.UserText("again", 1)))
				if !errors.Is(err, ErrBroken) || !errors.Is(err, ErrChanged) {
					t.Errorf("second append: %v, want ErrBroken with the change", err)
				}
				if len(s.Entries()) != n {
					t.Errorf("%d entries, want %d", len(s.Entries()), n)
				}
				tt.after(t, path, before)
				if err := s.Close(); err != nil {
					t.Errorf("close: %v", err)
				}
				mustNotExist(t, LockPath(path))
			})
		}
	}
}

// storeWithEntries returns a store at path holding a few entries, opened
// from an existing file or created by its first append.
func storeWithEntries(t *testing.T, path, how string) *FileStore {
	t.Helper()
	if how == "opened" {
		writeGoldenSession(t, path)
		s, err := Open(path, testOptions())
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s, err := Create(path, "/p", testOptions())
	if err != nil {
		t.Fatal(err)
	}
	parent := ""
	for _, text := range []string{"one", "two", "three"} {
		e, err := s.Append(t.Context(), MessageEntry(parent, ai.UserText(text, 1)))
		if err != nil {
			t.Fatal(err)
		}
		parent = e.ID
	}
	return s
}

// A new session whose path another program took before the first append
// writes nothing into that file.
func TestCreatedPathTakenBeforeFirstAppend(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	s, err := Create(path, "/p", testOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	mustDo(t, os.WriteFile(path, []byte(otherSession), 0o600))
	_, err = s.Append(t.Context(), MessageEntry("", ai.UserText("hi", 1)))
	var ce *ChangedError
	if !errors.As(err, &ce) || ce.Change != ChangeCreated || !strings.Contains(err.Error(), "created by another program") {
		t.Fatalf("append: %v", err)
	}
	mustEqual(t, path, []byte(otherSession))
	if _, err := s.Append(t.Context(), MessageEntry("", ai.UserText("hi", 1))); !errors.Is(err, ErrBroken) {
		t.Fatalf("second append: %v", err)
	}
}

// The check costs nothing a user sees when nobody else touches the file:
// appends go on across a reopen, and the file reads back whole.
func TestUnchangedFileKeepsAppending(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	s := storeWithEntries(t, path, "created")
	s.Close()
	s, err := Open(path, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	appendRaw(t, path, "") // a no-op write by another program changes nothing
	parent := s.Entries()[2].ID
	for range 3 {
		e, err := s.Append(t.Context(), MessageEntry(parent, ai.UserText("more", 1)))
		if err != nil {
			t.Fatal(err)
		}
		parent = e.ID
	}
	f, err := ReadFile(path)
	if err != nil || len(f.Entries) != 6 || len(f.Warnings) != 0 {
		t.Fatalf("reread: %v, %d entries, %v", err, len(f.Entries), f.Warnings)
	}
}

func mustNotExist(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s exists (%v)", path, err)
	}
}

func mustEqual(t *testing.T, path string, want []byte) {
	t.Helper()
	if got := mustRead(t, path); !bytes.Equal(got, want) {
		t.Errorf("%s holds %d bytes:\n%s\nwant %d bytes:\n%s", path, len(got), got, len(want), want)
	}
}

// syncHookFile runs onSync (when set) inside the fsync of an append: a
// change by another program while an entry is being written.
type syncHookFile struct {
	*os.File
	onSync func()
}

func (f *syncHookFile) Sync() error {
	if f.onSync != nil {
		f.onSync()
	}
	return f.File.Sync()
}

// An entry whose file was deleted or truncated while it was being
// written is not reported as stored: it is in no file at the path.
func TestChangedDuringWrite(t *testing.T) {
	for _, change := range []string{ChangeDeleted, ChangeTruncated} {
		t.Run(change, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.jsonl")
			var hf *syncHookFile
			opts := testOptions()
			opts.OpenFile = func(name string, flag int, perm os.FileMode) (WriteFile, error) {
				f, err := os.OpenFile(name, flag, perm)
				hf = &syncHookFile{File: f}
				return hf, err
			}
			s, err := Create(path, "/p", opts)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			first, err := s.Append(t.Context(), MessageEntry("", ai.UserText("one", 1)))
			if err != nil {
				t.Fatal(err)
			}
			hf.onSync = func() {
				if change == ChangeDeleted {
					mustDo(t, os.Remove(path))
				} else {
					mustDo(t, os.Truncate(path, 10))
				}
			}
			_, err = s.Append(t.Context(), MessageEntry(first.ID, ai.UserText("two", 1)))
			var ce *ChangedError
			if !errors.As(err, &ce) || ce.Change != change {
				t.Fatalf("append during which the file was %s: %v", change, err)
			}
			if len(s.Entries()) != 1 {
				t.Errorf("%d entries, want the one stored before", len(s.Entries()))
			}
		})
	}
}
