package tools

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"gopi/internal/atomicfile"
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

// replace gives the file name in d the content atomically (promise 11),
// as atomicfile.Steps.Replace does: a temporary file next to it, fsynced,
// given the old file's owner and mode (old is nil for a new file), renamed
// over name, then the folder fsynced; on any failure before the rename the
// file keeps its old bytes. Every step names the file relative to d, the
// folder opened (and, sandboxed, checked) before.
func (o replaceOps) replace(d *atomicfile.Folder, name string, content []byte, old fs.FileInfo) error {
	steps := atomicfile.Steps{Writer: o.writer, SyncFile: o.syncFile, Rename: o.rename, SyncDir: o.syncDir}
	err := steps.Replace(d, name, newFilePerm, old, atomicfile.Bytes(content))
	var te *atomicfile.TempError
	if errors.As(err, &te) {
		return fmt.Errorf("create a temporary file in %s (write and edit replace a file through one, so the folder must be writable): %w", te.Dir, te.Err)
	}
	return err
}

func (o replaceOps) afterCheck() {
	if o.checked != nil {
		o.checked()
	}
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
	var unsynced *atomicfile.UnsyncedError
	switch {
	case err == nil:
		return TextResult(success)
	case errors.As(err, &unsynced):
		return TextResult(fmt.Sprintf("%s. Warning: the new content is in place, but %v, so it may not survive a crash.", strings.TrimSuffix(success, "."), err))
	}
	return ErrorResult(fmt.Sprintf("Cannot write %s: %v. The file was left as it was.", shown, err))
}
