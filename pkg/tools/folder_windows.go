package tools

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// folder is the folder a write or edit replaces a file in. Windows has
// no sandbox, so it is named by its path.
type folder struct{ path string }

// openWriteFolder returns target's folder (made first when mk is set)
// and the file's name in it. A guard whose sandbox is on does not exist
// here; one that says otherwise is refused.
func openWriteFolder(call Call, asked, target string, mk bool) (*folder, string, error) {
	f, _, err := call.Env.Guard.OpenFolder(call.Name, asked, target)
	if err != nil {
		return nil, "", err
	}
	if f != nil {
		f.Close()
		return nil, "", errors.New("no sandbox exists on this platform")
	}
	dir := filepath.Dir(target)
	if mk {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, "", err
		}
	}
	return &folder{path: dir}, filepath.Base(target), nil
}

func (d *folder) close()                                {}
func (d *folder) join(name string) string               { return filepath.Join(d.path, name) }
func (d *folder) stat(name string) (fs.FileInfo, error) { return os.Lstat(d.join(name)) }
func (d *folder) remove(name string)                    { _ = os.Remove(d.join(name)) }
func (d *folder) rename(from, to string) error          { return os.Rename(d.join(from), d.join(to)) }
func (d *folder) writable(name string) error            { return checkWritable(d.join(name)) }
func (d *folder) sync() error                           { return syncDir(d.path) }

func (d *folder) create(name string, perm fs.FileMode) (*os.File, error) {
	return os.OpenFile(d.join(name), os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
}
