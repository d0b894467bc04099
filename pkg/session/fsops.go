package session

import (
	"errors"
	"os"
	"syscall"
	"time"
)

// fsOps are the steps of a file store, besides the session file itself
// (Options.OpenFile), that tests fail or observe: the lock file, the
// folder fsync, the wait for a lock holder's pid. The zero value is the
// real file system and clock; Options carries one in an unexported field
// that only tests set.
type fsOps struct {
	// openLock opens (creating) a sidecar lock file.
	openLock func(name string, flag int, perm os.FileMode) (*os.File, error)
	// openDir opens a folder whose entries must be made durable.
	openDir func(name string) (dirHandle, error)
	// sleep waits a moment for a lock holder to write its pid.
	sleep func(time.Duration)
}

// dirHandle is what a folder fsync needs of an open folder.
type dirHandle interface {
	Sync() error
	Close() error
}

func (o fsOps) doOpenLock(name string) (*os.File, error) {
	const flag, perm = os.O_RDWR | os.O_CREATE | oCloexec, 0o600
	if o.openLock != nil {
		return o.openLock(name, flag, perm)
	}
	return openLockFile(name, flag, perm)
}

func (o fsOps) doSleep(d time.Duration) {
	if o.sleep != nil {
		o.sleep(d)
		return
	}
	time.Sleep(d)
}

// syncDir fsyncs a folder so the names created in it survive a crash. A
// file system that cannot sync a folder (EINVAL, ENOTSUP) has nothing more
// to offer and is not an error: refusing it would leave no session at all.
func (o fsOps) syncDir(dir string) error {
	var d dirHandle
	var err error
	if o.openDir != nil {
		d, err = o.openDir(dir)
	} else {
		d, err = openDirForSync(dir)
	}
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOTSUP) {
		return err
	}
	return nil
}
