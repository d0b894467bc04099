package atomicfile

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// keepOwnerAndMode gives f the mode of old: on Windows, only whether the
// file is read-only. The replacement is owned by whoever runs gopi and
// gets the folder's inherited permissions.
func keepOwnerAndMode(f *os.File, old fs.FileInfo) error {
	if err := f.Chmod(old.Mode() & KeptModeBits); err != nil {
		return fmt.Errorf("chmod %s: %w", filepath.Base(f.Name()), err)
	}
	return nil
}

// SyncDir has nothing to do on Windows (Folder.Sync).
func SyncDir(string) error { return nil }
