//go:build unix

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// openBeneath opens the folder dir (absolute and clean, root or below
// it) from root without following a symbolic link: in one openat2 call
// (RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS) where the kernel has it and the
// folder exists, else one name at a time, each step refusing a link
// (O_NOFOLLOW) and making a missing folder (0755 less the umask): the
// folder opened is the one whose path was checked, whatever links a
// command puts on the way meanwhile. root's own path must hold no link a
// command can change (a writable root is a real path, and the outermost
// root holding dir is the one given).
func openBeneath(root, dir string) (*os.File, error) {
	rel, err := filepath.Rel(root, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return nil, fmt.Errorf("%s is not in %s", dir, root)
	}
	const flags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC
	fd, err := openat(unix.AT_FDCWD, root, flags)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: root, Err: err}
	}
	if rel == "." {
		return os.NewFile(uintptr(fd), dir), nil
	}
	if got, err := openResolved(fd, rel); err == nil {
		unix.Close(fd)
		return os.NewFile(uintptr(got), dir), nil
	} else if !errors.Is(err, errWalk) {
		unix.Close(fd)
		return nil, &os.PathError{Op: "open", Path: dir, Err: notFolder(err)}
	}
	return walkBeneath(fd, root, rel)
}

// walkBeneath opens the folder rel below the open folder fd (root's, and
// closed here) one name at a time, each step refusing a symbolic link
// and making a missing folder.
func walkBeneath(fd int, root, rel string) (*os.File, error) {
	const flags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC
	at := root
	for _, name := range strings.Split(rel, "/") {
		at = filepath.Join(at, name)
		next, err := openat(fd, name, flags)
		if errors.Is(err, unix.ENOENT) {
			if err = unix.Mkdirat(fd, name, 0o755); err == nil || errors.Is(err, unix.EEXIST) {
				next, err = openat(fd, name, flags)
			}
		}
		unix.Close(fd)
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: at, Err: notFolder(err)}
		}
		fd = next
	}
	return os.NewFile(uintptr(fd), filepath.Join(root, rel)), nil
}

// notFolder words a step that met a link or a file.
func notFolder(err error) error {
	if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.EXDEV) {
		return fmt.Errorf("it is not a folder (a symbolic link or a file took its place): %w", err)
	}
	return err
}

// errWalk: the folder is to be reached one name at a time (openResolved
// cannot, or a folder on the way is missing and must be made).
var errWalk = errors.New("walk")

func openat(dirfd int, name string, flags int) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, flags, 0)
		if !errors.Is(err, unix.EINTR) {
			return fd, err
		}
	}
}
