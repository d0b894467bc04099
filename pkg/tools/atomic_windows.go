package tools

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
	if err := f.Chmod(old.Mode() & keptModeBits); err != nil {
		return fmt.Errorf("chmod %s: %w", filepath.Base(f.Name()), err)
	}
	return nil
}

// syncDir has nothing to do on Windows: NTFS journals the rename itself,
// and a folder cannot be flushed through a handle opened for reading.
func syncDir(string) error { return nil }

// checkWritable fails when the file is read-only.
func checkWritable(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if st.Mode().Perm()&0o200 == 0 {
		return &fs.PathError{Op: "open", Path: path, Err: fs.ErrPermission}
	}
	return nil
}

// oDirectory: Windows opens a folder only as a folder already.
const oDirectory = 0
