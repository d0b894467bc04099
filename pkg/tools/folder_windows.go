package tools

import (
	"errors"
	"os"
	"path/filepath"

	"gopi/internal/atomicfile"
)

// openWriteFolder returns target's folder (made first when mk is set)
// and the file's name in it. A guard whose sandbox is on does not exist
// here; one that says otherwise is refused.
func openWriteFolder(call Call, asked, target string, mk bool) (*atomicfile.Folder, string, error) {
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
	d, err := atomicfile.OpenFolder(dir)
	if err != nil {
		return nil, "", err
	}
	return d, filepath.Base(target), nil
}
