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
	// checked runs once the tool has resolved and checked the target,
	// before anything is opened or written: tests change the file system
	// there, as a command running meanwhile may.
	checked func()
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

// replace gives the file name in d the content atomically (promise 11):
// the bytes go to a new temporary file next to it (O_EXCL, O_NOFOLLOW,
// ".<name>.gopi-tmp-…"), which is fsynced, given the old file's owner and
// mode (old is nil for a new file), and renamed over name; then the
// folder is fsynced. On any failure before the rename the temporary file
// is removed and the file keeps its old bytes; a crash leaves the old
// bytes or the new, never a mix. Every step names the file relative to d,
// the folder opened (and, sandboxed, checked) before.
//
// name must not be a symbolic link: callers resolve links first, so the
// file a link points to is replaced and the link stays a link. The old
// file's owner and mode are read again through d (lstat): a file that
// became something else meanwhile is not replaced. A rename makes a new
// inode, so other hard links to the old file keep the old bytes, and
// extended attributes and ACLs are not carried over.
func (o replaceOps) replace(d *folder, name string, content []byte, old fs.FileInfo) error {
	path := d.join(name)
	perm := newFilePerm
	if old != nil {
		cur, err := d.stat(name)
		if err != nil {
			return fmt.Errorf("it changed while it was being written: %w", err)
		}
		if !cur.Mode().IsRegular() {
			return fmt.Errorf("it changed while it was being written: %w", checkRegular(cur))
		}
		old = cur
		// A rename needs only the folder to be writable; the file must be
		// too, as it had to be when it was rewritten in place, so a
		// read-only file stays protected.
		if err := d.writable(name); err != nil {
			return fmt.Errorf("the file is not writable: %w", err)
		}
		perm = 0o600 // until chmod below gives it the old mode
	}
	f, tmp, err := createTemp(d, name, perm)
	if err != nil {
		return fmt.Errorf("create a temporary file in %s (write and edit replace a file through one, so the folder must be writable): %w", d.path, err)
	}
	if err := o.fill(f, content, old); err != nil {
		f.Close()
		d.remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		d.remove(tmp)
		return fmt.Errorf("close %s: %w", tmp, err)
	}
	if err := o.doRename(d, tmp, name); err != nil {
		d.remove(tmp)
		return fmt.Errorf("rename %s over %s: %w", tmp, path, err)
	}
	if err := o.doSyncDir(d); err != nil {
		return &unsyncedError{dir: d.path, err: err}
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

func (o replaceOps) afterCheck() {
	if o.checked != nil {
		o.checked()
	}
}

func (o replaceOps) doRename(d *folder, from, to string) error {
	if o.rename != nil {
		return o.rename(d.join(from), d.join(to))
	}
	return d.rename(from, to)
}

func (o replaceOps) doSyncDir(d *folder) error {
	if o.syncDir != nil {
		return o.syncDir(d.path)
	}
	return d.sync()
}

// maxTempBase bounds how much of the target's name the temporary file's
// name repeats, so it stays under the usual 255-byte name limit.
const maxTempBase = 200

// createTemp makes a new file in d named ".<base>.gopi-tmp-<random>"
// and returns it with its name.
func createTemp(d *folder, base string, perm fs.FileMode) (*os.File, string, error) {
	if len(base) > maxTempBase {
		cut := maxTempBase
		for cut > 0 && !utf8.RuneStart(base[cut]) {
			cut--
		}
		base = base[:cut]
	}
	for range 100 {
		name := "." + base + ".gopi-tmp-" + strconv.FormatUint(rand.Uint64(), 36)
		f, err := d.create(name, perm)
		if !errors.Is(err, fs.ErrExist) {
			return f, name, err
		}
	}
	return nil, "", fmt.Errorf("no unused temporary name: %w", fs.ErrExist)
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
