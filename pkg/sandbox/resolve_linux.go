package sandbox

import (
	"errors"

	"golang.org/x/sys/unix"
)

// openResolved opens the folder rel below the folder rootfd in one call,
// no step following a symbolic link or leaving rootfd's tree
// (RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS). errWalk: a folder on the way is
// missing, or the kernel has no openat2.
func openResolved(rootfd int, rel string) (int, error) {
	how := unix.OpenHow{
		Flags:   unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS,
	}
	for {
		fd, err := unix.Openat2(rootfd, rel, &how)
		switch {
		case err == nil:
			return fd, nil
		case errors.Is(err, unix.EINTR), errors.Is(err, unix.EAGAIN):
			continue
		case errors.Is(err, unix.ENOENT), errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EPERM):
			return -1, errWalk
		}
		return -1, err
	}
}
