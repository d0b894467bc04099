package session

import (
	"os"

	"golang.org/x/sys/windows"
)

// Flags of the opens of a session and its lock file: Windows handles are
// not inherited unless asked, and opening a file never blocks.
const (
	oCloexec  = 0
	oNonblock = 0
)

// errWouldBlock is lockFile's error when another holds the lock.
var errWouldBlock error = windows.ERROR_LOCK_VIOLATION

// lockOffset is where the lock's one byte lies: far past any real
// content, because a Windows lock is mandatory, and a lock on the bytes
// themselves would stop readers (pi, gopi session list) and gopi's own
// append handle. Every gopi locks this same byte, so the lock excludes
// other writers only.
const lockOffset = 1 << 62

// lockFile takes an exclusive LockFileEx lock of f without waiting. The
// lock belongs to the handle and ends when it is closed.
func lockFile(f *os.File) error {
	ol := windows.Overlapped{Offset: uint32(lockOffset & 0xffffffff), OffsetHigh: uint32(lockOffset >> 32)}
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ol)
}

// openLockFile opens (creating) a sidecar lock file, shared for deletion:
// its holder removes it while still holding it open, as on Unix.
func openLockFile(name string, flag int, perm os.FileMode) (*os.File, error) {
	p, err := windows.UTF16PtrFromString(name)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: name, Err: err}
	}
	access := uint32(windows.GENERIC_READ)
	if flag&(os.O_RDWR|os.O_WRONLY) != 0 {
		access |= windows.GENERIC_WRITE
	}
	create := uint32(windows.OPEN_EXISTING)
	if flag&os.O_CREATE != 0 {
		create = windows.OPEN_ALWAYS
	}
	h, err := windows.CreateFile(p, access, windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE,
		nil, create, windows.FILE_ATTRIBUTE_NORMAL, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: name, Err: err}
	}
	return os.NewFile(uintptr(h), name), nil
}

// openDirForSync has nothing to open: NTFS journals the names a folder
// gains, and a folder cannot be flushed through a handle opened to read.
func openDirForSync(string) (dirHandle, error) { return noSync{}, nil }

type noSync struct{}

func (noSync) Sync() error  { return nil }
func (noSync) Close() error { return nil }
