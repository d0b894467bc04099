//go:build unix

package atomicfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"unicode/utf8"
)

func openFolder(t *testing.T, dir string) *Folder {
	t.Helper()
	d, err := OpenFolder(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Close)
	return d
}

// oldFile writes an existing file and returns the folder and its lstat.
func oldFile(t *testing.T, content string, mode fs.FileMode) (*Folder, string, fs.FileInfo) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
	st, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return openFolder(t, dir), path, st
}

func content(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// onlyFile asserts the folder holds the file alone: no temporary file
// was left behind.
func onlyFile(t *testing.T, d *Folder) {
	t.Helper()
	if names := entries(t, d.Path()); len(names) != 1 || names[0] != "f" {
		t.Fatalf("the folder holds %q, want f alone", names)
	}
}

func TestReplaceKeepsSpecialModeBits(t *testing.T) {
	mode := fs.ModePerm&0o750 | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky
	d, path, old := oldFile(t, "old", mode)
	if err := (Steps{}).Replace(d, "f", 0o600, old, Bytes([]byte("new"))); err != nil {
		t.Fatal(err)
	}
	st, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := st.Mode() & KeptModeBits; got != mode {
		t.Fatalf("mode %v, want the old %v", got, mode)
	}
	if content(t, path) != "new" {
		t.Fatal("content not replaced")
	}
	// The folder's own stat reads the same bits.
	if fst, err := d.Stat("f"); err != nil || fst.Mode() != mode || fst.Name() != "f" || fst.Size() != 3 || fst.IsDir() ||
		!fst.ModTime().Equal(st.ModTime()) {
		t.Fatalf("Folder.Stat = %v, %v", fst, err)
	}
}

func TestReplaceKeepsTheOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("giving a file another owner takes root")
	}
	d, path, _ := oldFile(t, "old", 0o644)
	if err := os.Chown(path, 12345, 23456); err != nil {
		t.Skip(err)
	}
	old, _ := os.Lstat(path)
	if err := (Steps{}).Replace(d, "f", 0o600, old, Bytes([]byte("new"))); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Lstat(path)
	sys := st.Sys().(*syscall.Stat_t)
	if sys.Uid != 12345 || sys.Gid != 23456 {
		t.Fatalf("owner %d:%d, want 12345:23456", sys.Uid, sys.Gid)
	}
}

// Until it has the old mode, the temporary file of a replaced file is
// its owner's alone, whatever perm asks for.
func TestReplaceTempIsPrivateUntilChmod(t *testing.T) {
	d, path, old := oldFile(t, "old", 0o644)
	var tempMode fs.FileMode
	var tempName string
	s := Steps{Writer: func(w io.Writer) io.Writer {
		f := w.(*os.File)
		st, err := f.Stat()
		if err != nil {
			t.Fatal(err)
		}
		tempMode, tempName = st.Mode(), filepath.Base(f.Name())
		return w
	}}
	if err := s.Replace(d, "f", 0o666, old, Bytes([]byte("new"))); err != nil {
		t.Fatal(err)
	}
	if tempMode.Perm() != 0o600 {
		t.Fatalf("the temporary file had mode %v, want 0600", tempMode)
	}
	if !strings.HasPrefix(tempName, ".f.gopi-tmp-") || len(tempName) <= len(".f.gopi-tmp-") {
		t.Fatalf("temporary file %q", tempName)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 || content(t, path) != "new" {
		t.Fatalf("mode %v", st.Mode())
	}
	onlyFile(t, d)
}

func TestReplaceRefusesWhatChanged(t *testing.T) {
	d, path, old := oldFile(t, "old", 0o644)
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	err := (Steps{}).Replace(d, "f", 0o644, old, Bytes([]byte("new")))
	if err == nil || err.Error() != "it changed while it was being written: it is a folder, not a regular file" {
		t.Fatalf("err = %v", err)
	}
	os.Remove(path)
	err = (Steps{}).Replace(d, "f", 0o644, old, Bytes([]byte("new")))
	if !errors.Is(err, fs.ErrNotExist) || err.Error() != "it changed while it was being written: lstat "+path+": no such file or directory" {
		t.Fatalf("err = %v", err)
	}
	if names := entries(t, d.Path()); len(names) != 0 {
		t.Fatalf("the folder holds %q", names)
	}
}

func TestReplaceRefusesAReadOnlyFile(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root may write any file")
	}
	d, path, old := oldFile(t, "old", 0o444)
	err := (Steps{}).Replace(d, "f", 0o644, old, Bytes([]byte("new")))
	if err == nil || err.Error() != "the file is not writable: access "+path+": permission denied" {
		t.Fatalf("err = %v", err)
	}
	if content(t, path) != "old" {
		t.Fatal("a read-only file was replaced")
	}
}

// failAfter is a writer that takes n bytes, then fails like a full disk.
type failAfter struct {
	w   io.Writer
	n   int
	err error
}

func (f *failAfter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		n, _ := f.w.Write(p[:f.n])
		return n, f.err
	}
	f.n -= len(p)
	return f.w.Write(p)
}

// shortWriter writes less than it is given and says nothing.
type shortWriter struct{ w io.Writer }

func (s shortWriter) Write(p []byte) (int, error) { return s.w.Write(p[:len(p)/2]) }

func TestReplaceFailuresKeepTheOldBytes(t *testing.T) {
	full := errors.New("no space left on device")
	cases := map[string]struct {
		steps Steps
		want  string // the error, with TMP for the temporary file's name
	}{
		"full disk": {Steps{Writer: func(w io.Writer) io.Writer { return &failAfter{w: w, n: 2, err: full} }},
			"write TMP: no space left on device"},
		"short write": {Steps{Writer: func(w io.Writer) io.Writer { return shortWriter{w} }},
			"write TMP: short write"},
		"sync": {Steps{SyncFile: func(*os.File) error { return errors.New("EIO") }},
			"sync TMP: EIO"},
		"close": {Steps{SyncFile: func(f *os.File) error { return f.Close() }},
			"close TMP: close DIR/TMP: file already closed"},
		"rename": {Steps{Rename: func(string, string) error { return errors.New("EXDEV") }},
			"rename TMP over DIR/f: EXDEV"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			d, path, old := oldFile(t, "old", 0o644)
			var tmp string
			inner := c.steps.Writer
			c.steps.Writer = func(w io.Writer) io.Writer {
				tmp = filepath.Base(w.(*os.File).Name())
				if inner != nil {
					return inner(w)
				}
				return w
			}
			err := c.steps.Replace(d, "f", 0o644, old, Bytes([]byte("new content")))
			want := strings.ReplaceAll(strings.ReplaceAll(c.want, "TMP", tmp), "DIR", d.Path())
			if err == nil || err.Error() != want {
				t.Fatalf("err = %v\nwant  %s", err, want)
			}
			if content(t, path) != "old" {
				t.Fatalf("content %q, want old", content(t, path))
			}
			onlyFile(t, d)
		})
	}
}

func TestBytesNamesTheFileItWrites(t *testing.T) {
	err := Bytes([]byte("abc"))(&failAfter{w: io.Discard, n: 1, err: errors.New("EIO")})
	if err == nil || err.Error() != "write the temporary file: EIO" {
		t.Fatalf("err = %v", err)
	}
	var b strings.Builder
	if err := Bytes([]byte("abc"))(&b); err != nil || b.String() != "abc" {
		t.Fatalf("%q, %v", b.String(), err)
	}
}

func TestReplaceWithoutTemporaryFile(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "gone")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	d := openFolder(t, sub)
	if err := os.Remove(sub); err != nil {
		t.Fatal(err)
	}
	err := (Steps{}).Replace(d, "f", 0o644, nil, Bytes([]byte("x")))
	var te *TempError
	if !errors.As(err, &te) || te.Dir != sub || !errors.Is(err, fs.ErrNotExist) ||
		!strings.HasPrefix(err.Error(), "create a temporary file in "+sub+": open "+sub+"/.f.gopi-tmp-") {
		t.Fatalf("err = %v", err)
	}
}

// A long name's temporary file repeats at most its first 200 bytes, cut
// at a character: the temporary name stays a valid name.
func TestReplaceLongNames(t *testing.T) {
	for _, name := range []string{
		strings.Repeat("n", 200),
		strings.Repeat("n", 201),
		"a" + strings.Repeat("é", 124), // 249 bytes; byte 200 is inside an é
	} {
		dir := t.TempDir()
		d := openFolder(t, dir)
		var tmp string
		s := Steps{Writer: func(w io.Writer) io.Writer { tmp = filepath.Base(w.(*os.File).Name()); return w }}
		if err := s.Replace(d, name, 0o644, nil, Bytes([]byte("x"))); err != nil {
			t.Fatalf("%d bytes: %v", len(name), err)
		}
		base := strings.TrimPrefix(tmp[:strings.Index(tmp, ".gopi-tmp-")], ".")
		if !utf8.ValidString(tmp) || !strings.HasPrefix(name, base) || len(base) < 199 || len(base) > 200 {
			t.Fatalf("%d bytes: temporary file %q", len(name), tmp)
		}
		if content(t, filepath.Join(dir, name)) != "x" {
			t.Fatal("not written")
		}
	}
}

func TestWriteFileReplacesALinkByTheFile(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("target"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(link, 0o600, Bytes([]byte("new"))); err != nil {
		t.Fatal(err)
	}
	st, err := os.Lstat(link)
	if err != nil || !st.Mode().IsRegular() || content(t, link) != "new" || content(t, target) != "target" {
		t.Fatalf("link %v, %v", st, err)
	}
}

func TestFolderOperations(t *testing.T) {
	dir := t.TempDir()
	d := openFolder(t, dir)
	if d.Join("x") != filepath.Join(dir, "x") {
		t.Fatalf("Join = %q", d.Join("x"))
	}
	_, err := d.Stat("missing")
	var pe *fs.PathError
	if !errors.As(err, &pe) || pe.Op != "lstat" || pe.Path != filepath.Join(dir, "missing") || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Stat: %v", err)
	}
	if err := d.Writable("missing"); err == nil || err.Error() != "access "+filepath.Join(dir, "missing")+": no such file or directory" {
		t.Fatalf("Writable: %v", err)
	}
	var le *os.LinkError
	if err := d.Rename("missing", "x"); !errors.As(err, &le) || le.Old != filepath.Join(dir, "missing") || le.New != filepath.Join(dir, "x") {
		t.Fatalf("Rename: %v", err)
	}
	f, err := d.Create("c", 0o640)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if st, _ := os.Lstat(filepath.Join(dir, "c")); st.Mode().Perm() != 0o640&^umask(t) {
		t.Fatalf("Create gave mode %v", st.Mode())
	}
	if _, err := d.Create("c", 0o640); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("Create over a file: %v", err)
	}
	if err := os.Symlink("nowhere", filepath.Join(dir, "l")); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Create("l", 0o640); err == nil {
		t.Fatal("Create followed a symbolic link")
	}
	if st, err := d.Stat("l"); err != nil || st.Mode().Type() != fs.ModeSymlink {
		t.Fatalf("Stat of a link: %v, %v", st, err)
	}
	d.Remove("c")
	if _, err := os.Lstat(filepath.Join(dir, "c")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatal("Remove left the file")
	}
	if err := d.Sync(); err != nil {
		t.Fatalf("Sync: %v", err)
	}
	if err := SyncDir(dir); err != nil {
		t.Fatalf("SyncDir: %v", err)
	}
	if err := SyncDir(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("SyncDir of a missing folder: %v", err)
	}
	d.Close()
	if _, err := d.Stat("l"); err == nil {
		t.Fatal("a closed folder still reads")
	}
}

func umask(t *testing.T) fs.FileMode {
	t.Helper()
	m := syscall.Umask(0)
	syscall.Umask(m)
	return fs.FileMode(m)
}

// A sync that fails is an error; one a file system cannot do (EINVAL,
// here a pipe's) is not.
func TestFolderSync(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	p := NewFolder(r)
	if err := p.Sync(); err != nil {
		t.Fatalf("a sync the file cannot do: %v", err)
	}
	p.Close()
	if err := p.Sync(); err == nil {
		t.Fatal("a failed sync is not an error")
	}
}

// The mode kept is the file's as it is when replaced, not as the caller
// saw it before; a plain file gains no special bit.
func TestReplaceKeepsTheCurrentMode(t *testing.T) {
	d, path, old := oldFile(t, "old", 0o600)
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := (Steps{}).Replace(d, "f", 0o600, old, Bytes([]byte("new"))); err != nil {
		t.Fatal(err)
	}
	if st, err := d.Stat("f"); err != nil || st.Mode() != 0o640 {
		t.Fatalf("mode %v, %v; want the current 0640", st.Mode(), err)
	}
	if st, _ := os.Lstat(path); st.Mode() != 0o640 {
		t.Fatalf("mode %v, want 0640", st.Mode())
	}
}

// WriteFile closes the folder it opened.
func TestWriteFileLeavesNoDescriptor(t *testing.T) {
	count := func() int {
		des, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Skip(err)
		}
		return len(des)
	}
	path := filepath.Join(t.TempDir(), "f")
	before := count()
	for range 3 {
		if err := WriteFile(path, 0o600, Bytes([]byte("x"))); err != nil {
			t.Fatal(err)
		}
	}
	if after := count(); after != before {
		t.Fatalf("%d descriptors open, %d before", after, before)
	}
}

func openDescriptors(t *testing.T) int {
	t.Helper()
	des, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip(err)
	}
	return len(des)
}

// A failed replace closes its temporary file; SyncDir closes its folder.
func TestFailuresAndSyncDirLeaveNoDescriptor(t *testing.T) {
	d, _, old := oldFile(t, "old", 0o644)
	before := openDescriptors(t)
	for range 3 {
		if err := (Steps{}).Replace(d, "f", 0o644, old, func(io.Writer) error { return errors.New("no") }); err == nil {
			t.Fatal("the write's error was lost")
		}
		if err := SyncDir(d.Path()); err != nil {
			t.Fatal(err)
		}
	}
	if after := openDescriptors(t); after != before {
		t.Fatalf("%d descriptors open, %d before", after, before)
	}
}

// A name whose first 200 bytes hold no character start (not UTF-8) has
// none of it repeated in the temporary file's name.
func TestReplaceNameWithoutCharacters(t *testing.T) {
	name := strings.Repeat("\x80", 201)
	d := openFolder(t, t.TempDir())
	var tmp string
	s := Steps{Writer: func(w io.Writer) io.Writer { tmp = filepath.Base(w.(*os.File).Name()); return w }}
	if err := s.Replace(d, name, 0o644, nil, Bytes([]byte("x"))); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(tmp, "..gopi-tmp-") || !utf8.ValidString(tmp) {
		t.Fatalf("temporary file %q", tmp)
	}
}
