package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"unicode/utf8"

	"gopi/internal/filekind"
)

// KeptModeBits are the bits of an existing file a replacement keeps.
const KeptModeBits = fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky

// Steps are the steps of a replace that tests fail or observe. The zero
// value is the real file system.
type Steps struct {
	// Writer is what the content goes through into the temporary file;
	// tests return one that fails midway, like a full disk.
	Writer func(io.Writer) io.Writer
	// SyncFile fsyncs the temporary file.
	SyncFile func(*os.File) error
	// Rename moves the temporary file over the target (full paths).
	Rename func(oldpath, newpath string) error
	// SyncDir fsyncs the folder after the rename.
	SyncDir func(dir string) error
}

// UnsyncedError says the new content is in place but its folder could
// not be fsynced, so the rename might not survive a crash.
type UnsyncedError struct {
	Dir string
	Err error
}

func (e *UnsyncedError) Error() string { return fmt.Sprintf("sync folder %s: %v", e.Dir, e.Err) }
func (e *UnsyncedError) Unwrap() error { return e.Err }

// TempError says no temporary file could be made in the folder (it is
// not writable, or full).
type TempError struct {
	Dir string
	Err error
}

func (e *TempError) Error() string {
	return fmt.Sprintf("create a temporary file in %s: %v", e.Dir, e.Err)
}
func (e *TempError) Unwrap() error { return e.Err }

// Replace gives the file name in d the bytes write writes, atomically.
// old is the file's lstat when it exists (nil for a new file, created
// with perm less the umask): it is read again through d, and a file that
// became something other than a regular file meanwhile, or one the
// process may not write, is not replaced. name must not be a symbolic
// link: callers resolve links first, so the file a link points to is
// replaced and the link stays a link. A rename makes a new inode, so
// other hard links to the old file keep the old bytes, and extended
// attributes and ACLs are not carried over. write's own error is
// returned as it is.
func (s Steps) Replace(d *Folder, name string, perm fs.FileMode, old fs.FileInfo, write func(io.Writer) error) error {
	path := d.Join(name)
	if old != nil {
		cur, err := d.Stat(name)
		if err != nil {
			return fmt.Errorf("it changed while it was being written: %w", err)
		}
		if !cur.Mode().IsRegular() {
			return fmt.Errorf("it changed while it was being written: %w", &notRegularError{cur.Mode()})
		}
		old = cur
		// A rename needs only the folder to be writable; the file must be
		// too, as it had to be when it was rewritten in place, so a
		// read-only file stays protected.
		if err := d.Writable(name); err != nil {
			return fmt.Errorf("the file is not writable: %w", err)
		}
		perm = 0o600 // until the chmod gives it the old mode
	}
	f, tmp, err := createTemp(d, name, perm)
	if err != nil {
		return &TempError{Dir: d.Path(), Err: err}
	}
	if err := s.fill(f, write, old); err != nil {
		f.Close()
		d.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		d.Remove(tmp)
		return fmt.Errorf("close %s: %w", tmp, err)
	}
	if err := s.rename(d, tmp, name); err != nil {
		d.Remove(tmp)
		return fmt.Errorf("rename %s over %s: %w", tmp, path, err)
	}
	if err := s.syncDir(d); err != nil {
		return &UnsyncedError{Dir: d.Path(), Err: err}
	}
	return nil
}

// Bytes is a write of content for Replace: a short or failed write is
// "write <temporary file>: <error>".
func Bytes(content []byte) func(io.Writer) error {
	return func(w io.Writer) error {
		n, err := w.Write(content)
		if err == nil && n != len(content) {
			err = io.ErrShortWrite
		}
		if err != nil {
			name := "the temporary file"
			if f, ok := w.(interface{ Name() string }); ok {
				name = filepath.Base(f.Name())
			}
			return fmt.Errorf("write %s: %w", name, err)
		}
		return nil
	}
}

// fill writes into the temporary file, gives it the old file's owner and
// mode, and fsyncs it.
func (s Steps) fill(f *os.File, write func(io.Writer) error, old fs.FileInfo) error {
	var w io.Writer = f
	if s.Writer != nil {
		w = namedWriter{s.Writer(f), f}
	}
	if err := write(w); err != nil {
		return err
	}
	if old != nil {
		if err := keepOwnerAndMode(f, old); err != nil {
			return err
		}
	}
	syncFile := s.SyncFile
	if syncFile == nil {
		syncFile = (*os.File).Sync
	}
	if err := syncFile(f); err != nil {
		return fmt.Errorf("sync %s: %w", filepath.Base(f.Name()), err)
	}
	return nil
}

// namedWriter is a test's writer that still names the file it writes.
type namedWriter struct {
	io.Writer
	f *os.File
}

func (w namedWriter) Name() string { return w.f.Name() }

func (s Steps) rename(d *Folder, from, to string) error {
	if s.Rename != nil {
		return s.Rename(d.Join(from), d.Join(to))
	}
	return d.Rename(from, to)
}

func (s Steps) syncDir(d *Folder) error {
	if s.SyncDir != nil {
		return s.SyncDir(d.Path())
	}
	return d.Sync()
}

// maxTempBase bounds how much of the target's name the temporary file's
// name repeats, so it stays under the usual 255-byte name limit.
const maxTempBase = 200

// createTemp makes a new file in d named ".<base>.gopi-tmp-<random>"
// and returns it with its name.
func createTemp(d *Folder, base string, perm fs.FileMode) (*os.File, string, error) {
	if len(base) > maxTempBase {
		cut := maxTempBase
		for cut > 0 && !utf8.RuneStart(base[cut]) {
			cut--
		}
		base = base[:cut]
	}
	for range 100 {
		name := "." + base + ".gopi-tmp-" + strconv.FormatUint(rand.Uint64(), 36)
		f, err := d.Create(name, perm)
		if !errors.Is(err, fs.ErrExist) {
			return f, name, err
		}
	}
	return nil, "", fmt.Errorf("no unused temporary name: %w", fs.ErrExist)
}

// notRegularError is a file that is not (or no longer) a regular file.
type notRegularError struct{ mode fs.FileMode }

func (e *notRegularError) Error() string {
	return "it is " + filekind.Of(e.mode) + ", not a regular file"
}

// WriteFile replaces the file at path with what write writes, as Replace
// does, in path's folder opened by its path. A new file gets perm (less
// the umask); an existing regular file keeps its owner and mode; a
// symbolic link at path is replaced by the file.
func WriteFile(path string, perm fs.FileMode, write func(io.Writer) error) error {
	d, err := OpenFolder(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer d.Close()
	name := filepath.Base(path)
	var old fs.FileInfo
	if st, err := d.Stat(name); err == nil && st.Mode().IsRegular() {
		old = st
	}
	return Steps{}.Replace(d, name, perm, old, write)
}
