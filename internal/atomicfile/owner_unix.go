//go:build unix

package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// keepOwnerAndMode gives f the owner and mode of old. Owner first: a chown
// clears the set-user-ID and set-group-ID bits. A chown the process may
// not make (EPERM: not root, not in the group) is skipped, leaving the
// replacement owned by whoever runs gopi.
func keepOwnerAndMode(f *os.File, old fs.FileInfo) error {
	uid, gid, ok := -1, -1, false
	switch st := old.Sys().(type) {
	case *unix.Stat_t:
		uid, gid, ok = int(st.Uid), int(st.Gid), true
	case *syscall.Stat_t:
		uid, gid, ok = int(st.Uid), int(st.Gid), true
	}
	if ok {
		err := f.Chown(uid, gid)
		if err != nil && !errors.Is(err, syscall.EPERM) {
			return fmt.Errorf("chown %s: %w", filepath.Base(f.Name()), err)
		}
	}
	if err := f.Chmod(old.Mode() & KeptModeBits); err != nil {
		return fmt.Errorf("chmod %s: %w", filepath.Base(f.Name()), err)
	}
	return nil
}

// SyncDir fsyncs the folder at dir so a rename in it is durable (as
// Folder.Sync does, by its path).
func SyncDir(dir string) error {
	d, err := OpenFolder(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
