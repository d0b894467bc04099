//go:build unix

package session

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// Flags of the opens of a session and its lock file.
const (
	oCloexec  = unix.O_CLOEXEC
	oNonblock = unix.O_NONBLOCK
)

// errWouldBlock is lockFile's error when another holds the lock.
var errWouldBlock error = unix.EWOULDBLOCK

// lockFile takes an exclusive flock of f without waiting.
func lockFile(f *os.File) error { return unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) }

// openLockFile opens (creating) a sidecar lock file.
func openLockFile(name string, flag int, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(name, flag, perm)
}

// openDirForSync opens a folder to fsync it.
func openDirForSync(dir string) (dirHandle, error) {
	return os.OpenFile(dir, os.O_RDONLY|syscall.O_DIRECTORY|unix.O_CLOEXEC, 0)
}
