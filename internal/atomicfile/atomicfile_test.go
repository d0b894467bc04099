package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func entries(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range des {
		names = append(names, d.Name())
	}
	return names
}

func TestWriteFileNewAndReplaced(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "page.html")
	if err := WriteFile(path, 0o600, Bytes([]byte("one"))); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path); runtime.GOOS != "windows" && st.Mode().Perm() != 0o600 {
		t.Errorf("a new file has mode %v, want 0600", st.Mode().Perm())
	}
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, 0o600, Bytes([]byte("two"))); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "two" {
		t.Errorf("content %q, want two", b)
	}
	if st, _ := os.Stat(path); runtime.GOOS != "windows" && st.Mode().Perm() != 0o640 {
		t.Errorf("a replaced file has mode %v, want its old 0640", st.Mode().Perm())
	}
	if names := entries(t, dir); len(names) != 1 {
		t.Errorf("the folder holds %q, want the file alone", names)
	}
}

// A write that fails leaves the old bytes and no temporary file, and its
// error comes back as it was.
func TestWriteFileFailureKeepsTheOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "notes.json")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	mine := errors.New("the renderer failed")
	err := WriteFile(path, 0o600, func(w io.Writer) error {
		io.WriteString(w, "half")
		return mine
	})
	if err != mine {
		t.Fatalf("err = %v, want the write's own", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("content %q, want old", b)
	}
	if names := entries(t, dir); len(names) != 1 {
		t.Errorf("the folder holds %q, want the file alone", names)
	}
}

func TestWriteFileInAMissingFolder(t *testing.T) {
	err := WriteFile(filepath.Join(t.TempDir(), "nope", "f"), 0o600, Bytes(nil))
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("err = %v", err)
	}
}

func TestReplaceSteps(t *testing.T) {
	dir := t.TempDir()
	d, err := OpenFolder(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var steps []string
	s := Steps{
		SyncFile: func(f *os.File) error {
			steps = append(steps, "sync "+filepath.Base(f.Name())[:len(".f.gopi-tmp-")])
			return f.Sync()
		},
		Rename:  func(from, to string) error { steps = append(steps, "rename"); return os.Rename(from, to) },
		SyncDir: func(string) error { steps = append(steps, "syncdir"); return errors.New("EIO") },
	}
	err = s.Replace(d, "f", 0o644, nil, Bytes([]byte("x")))
	var unsynced *UnsyncedError
	if !errors.As(err, &unsynced) || unsynced.Dir != dir {
		t.Fatalf("err = %v, want an UnsyncedError of %s", err, dir)
	}
	if got := strings.Join(steps, ", "); got != "sync .f.gopi-tmp-, rename, syncdir" {
		t.Errorf("steps %s", got)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "f")); string(b) != "x" {
		t.Errorf("content %q", b)
	}
}
