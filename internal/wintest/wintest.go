// Package wintest holds what Windows tests need to run under Wine too.
package wintest

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TempDir is t.TempDir removed file by file (os.Remove), not by
// os.RemoveAll: Go's RemoveAll on Windows deletes through
// FILE_DISPOSITION_INFORMATION_EX, which Wine 8 answers with "Invalid
// function", failing every test at cleanup.
func TempDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "gopi-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		var paths []string
		_ = filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
			paths = append(paths, p)
			return nil
		})
		slices.Reverse(paths) // contents before their folder
		for _, p := range paths {
			_ = os.Chmod(p, 0o666)
			if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
				t.Errorf("remove %s: %v", p, err)
			}
		}
	})
	return dir
}
