package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
)

// Folder is the folder a file is replaced in. Windows has no sandbox, so
// it is named by its path.
type Folder struct{ path string }

// OpenFolder is the folder at path, which must be one.
func OpenFolder(path string) (*Folder, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return nil, &fs.PathError{Op: "open", Path: path, Err: fs.ErrInvalid}
	}
	return &Folder{path: path}, nil
}

func (d *Folder) Close()                                {}
func (d *Folder) Path() string                          { return d.path }
func (d *Folder) Join(name string) string               { return filepath.Join(d.path, name) }
func (d *Folder) Stat(name string) (fs.FileInfo, error) { return os.Lstat(d.Join(name)) }
func (d *Folder) Remove(name string)                    { _ = os.Remove(d.Join(name)) }
func (d *Folder) Rename(from, to string) error          { return os.Rename(d.Join(from), d.Join(to)) }

// Sync has nothing to do on Windows: NTFS journals the rename itself,
// and a folder cannot be flushed through a handle opened for reading.
func (d *Folder) Sync() error { return nil }

// Create makes a new file in the folder (O_EXCL).
func (d *Folder) Create(name string, perm fs.FileMode) (*os.File, error) {
	return os.OpenFile(d.Join(name), os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
}

// Writable fails when the file is read-only.
func (d *Folder) Writable(name string) error {
	path := d.Join(name)
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if st.Mode().Perm()&0o200 == 0 {
		return &fs.PathError{Op: "open", Path: path, Err: fs.ErrPermission}
	}
	return nil
}
