//go:build unix

package tools

import (
	"os"
	"path/filepath"

	"gopi/internal/atomicfile"
)

// openWriteFolder opens the folder (an atomicfile.Folder: every step of
// a replace names the file relative to it) of target (the file a write or edit
// replaces, its links followed from asked, the absolute path asked for) and returns it with the file's name in
// it. With the sandbox on the guard opens it (Guard.OpenFolder: checked
// on the real path, reached without following a link; a refusal is its
// *sandbox.DeniedError); otherwise it is opened by its path, made first
// when mk is set.
func openWriteFolder(call Call, asked, target string, mk bool) (*atomicfile.Folder, string, error) {
	f, name, err := call.Env.Guard.OpenFolder(call.Name, asked, target)
	if err != nil {
		return nil, "", err
	}
	if f != nil {
		return atomicfile.NewFolder(f), name, nil
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
