package tools

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"
)

// replaceOps are the steps of an atomic replace that tests fail or
// observe. The zero value is the real file system; the write and edit
// tools carry one in an unexported field that only tests set.
type replaceOps struct {
	// writer is what the content goes through into the temporary file;
	// tests return one that fails midway, like a full disk.
	writer func(io.Writer) io.Writer
	// syncFile fsyncs the temporary file.
	syncFile func(*os.File) error
	// rename moves the temporary file over the target.
	rename func(oldpath, newpath string) error
	// syncDir fsyncs the folder after the rename.
	syncDir func(dir string) error
}

// newFilePerm is the mode of a file write creates, before the umask: the
// kernel applies the umask at creation, exactly as os.WriteFile does.
const newFilePerm fs.FileMode = 0o644

// keptModeBits are the bits of an existing file a replacement keeps.
const keptModeBits = fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky

// unsyncedError says the new content is in place but its folder could not
// be fsynced, so the rename might not survive a crash. The tools report
// the change (it happened) with a warning, not a failure.
type unsyncedError struct {
	dir string
	err error
}

func (e *unsyncedError) Error() string { return fmt.Sprintf("sync folder %s: %v", e.dir, e.err) }
func (e *unsyncedError) Unwrap() error { return e.err }

// replace gives path the content atomically (promise 11): the bytes go to a
// new temporary file next to it (O_EXCL, ".<name>.gopi-tmp-…"), which is
// fsynced, given the old file's owner and mode (old is nil for a new file),
// and renamed over path; then the folder is fsynced. On any failure before
// the rename the temporary file is removed and path keeps its old bytes; a
// crash leaves the old bytes or the new, never a mix.
//
// path must not be a symbolic link: callers resolve links first, so the
// file a link points to is replaced and the link stays a link. A rename
// makes a new inode, so other hard links to the old file keep the old
// bytes, and extended attributes and ACLs are not carried over.
func (o replaceOps) replace(path string, content []byte, old fs.FileInfo) error {
	dir := filepath.Dir(path)
	perm := newFilePerm
	if old != nil {
		// A rename needs only the folder to be writable; the file must be
		// too, as it had to be when it was rewritten in place, so a
		// read-only file stays protected.
		if err := checkWritable(path); err != nil {
			return fmt.Errorf("the file is not writable: %w", err)
		}
		perm = 0o600 // until chmod below gives it the old mode
	}
	f, err := createTemp(dir, filepath.Base(path), perm)
	if err != nil {
		return fmt.Errorf("create a temporary file in %s (write and edit replace a file through one, so the folder must be writable): %w", dir, err)
	}
	if err := o.fill(f, content, old); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("close %s: %w", filepath.Base(f.Name()), err)
	}
	if err := o.doRename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("rename %s over %s: %w", filepath.Base(f.Name()), path, err)
	}
	if err := o.doSyncDir(dir); err != nil {
		return &unsyncedError{dir: dir, err: err}
	}
	return nil
}

// fill writes content into the temporary file, gives it the old file's
// owner and mode, and fsyncs it.
func (o replaceOps) fill(f *os.File, content []byte, old fs.FileInfo) error {
	var w io.Writer = f
	if o.writer != nil {
		w = o.writer(f)
	}
	if n, err := w.Write(content); err != nil || n != len(content) {
		if err == nil {
			err = io.ErrShortWrite
		}
		return fmt.Errorf("write %s: %w", filepath.Base(f.Name()), err)
	}
	if old != nil {
		if err := keepOwnerAndMode(f, old); err != nil {
			return err
		}
	}
	syncFile := o.syncFile
	if syncFile == nil {
		syncFile = (*os.File).Sync
	}
	if err := syncFile(f); err != nil {
		return fmt.Errorf("sync %s: %w", filepath.Base(f.Name()), err)
	}
	return nil
}

func (o replaceOps) doRename(oldpath, newpath string) error {
	if o.rename != nil {
		return o.rename(oldpath, newpath)
	}
	return os.Rename(oldpath, newpath)
}

func (o replaceOps) doSyncDir(dir string) error {
	if o.syncDir != nil {
		return o.syncDir(dir)
	}
	return syncDir(dir)
}

// maxTempBase bounds how much of the target's name the temporary file's
// name repeats, so it stays under the usual 255-byte name limit.
const maxTempBase = 200

// createTemp makes a new file in dir named ".<base>.gopi-tmp-<random>",
// with O_EXCL so it never opens anything that was already there.
func createTemp(dir, base string, perm fs.FileMode) (*os.File, error) {
	if len(base) > maxTempBase {
		cut := maxTempBase
		for cut > 0 && !utf8.RuneStart(base[cut]) {
			cut--
		}
		base = base[:cut]
	}
	for range 100 {
		name := filepath.Join(dir, "."+base+".gopi-tmp-"+strconv.FormatUint(rand.Uint64(), 36))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, fmt.Errorf("no unused temporary name: %w", fs.ErrExist)
}

// maxLinkHops bounds how many symbolic links linkTarget follows, as the
// kernel's ELOOP limit does.
const maxLinkHops = 40

// linkTarget is the file a write to abs changes: abs itself, or the file
// its symbolic links lead to, so the link stays a link. A dangling link
// leads to a file that does not exist yet: write creates it there, as
// opening the link with O_CREAT would (and as pi's writeFile does).
func linkTarget(abs string) (string, error) {
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real, nil
	}
	for range maxLinkHops {
		st, err := os.Lstat(abs)
		if errors.Is(err, fs.ErrNotExist) || (err == nil && st.Mode()&fs.ModeSymlink == 0) {
			return abs, nil
		}
		if err != nil {
			return "", err
		}
		dest, err := os.Readlink(abs)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(abs), dest)
		}
		abs = dest
	}
	return "", fmt.Errorf("more than %d symbolic links lead on from it", maxLinkHops)
}

// replaceResult words the outcome of a replace: success, success whose
// folder sync failed, or a failure that left the file as it was.
func replaceResult(success, shown string, err error) Result {
	var unsynced *unsyncedError
	switch {
	case err == nil:
		return TextResult(success)
	case errors.As(err, &unsynced):
		return TextResult(fmt.Sprintf("%s. Warning: the new content is in place, but %v, so it may not survive a crash.", strings.TrimSuffix(success, "."), err))
	}
	return ErrorResult(fmt.Sprintf("Cannot write %s: %v. The file was left as it was.", shown, err))
}
