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
// it) one name at a time from root, each step refusing a symbolic link
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
	at := root
	if rel != "." {
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
				if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
					err = fmt.Errorf("it is not a folder (a symbolic link or a file took its place): %w", err)
				}
				return nil, &os.PathError{Op: "open", Path: at, Err: err}
			}
			fd = next
		}
	}
	return os.NewFile(uintptr(fd), dir), nil
}

func openat(dirfd int, name string, flags int) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, flags, 0)
		if !errors.Is(err, unix.EINTR) {
			return fd, err
		}
	}
}
