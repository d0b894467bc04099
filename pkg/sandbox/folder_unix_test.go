//go:build unix

package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestOpenBeneath: a folder is opened below its root, missing folders
// made; a symbolic link on the way is refused, whichever way the folder
// is reached (openat2 where the kernel has it, or the walk a missing
// folder takes), even one that leads back inside; a path out of the root
// is refused.
func TestOpenBeneath(t *testing.T) {
	dir := RealPath(t.TempDir())
	root, out := filepath.Join(dir, "root"), filepath.Join(dir, "out")
	for _, d := range []string{filepath.Join(root, "a"), out} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(out, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a", filepath.Join(root, "inner")); err != nil {
		t.Fatal(err)
	}
	f, err := openBeneath(root, filepath.Join(root, "a", "b", "c"))
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if st, err := os.Stat(filepath.Join(root, "a", "b", "c")); err != nil || !st.IsDir() {
		t.Fatalf("the missing folders were not made: %v", err)
	}
	for _, d := range []string{"link", "link/x", "inner", "inner/x/y"} {
		if f, err := openBeneath(root, filepath.Join(root, d)); err == nil || !strings.Contains(err.Error(), "not a folder") {
			if f != nil {
				f.Close()
			}
			t.Errorf("%s: %v", d, err)
		}
		rootfd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		if f, err := walkBeneath(rootfd, root, d); err == nil || !strings.Contains(err.Error(), "not a folder") {
			if f != nil {
				f.Close()
			}
			t.Errorf("walk %s: %v", d, err)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "x")); err == nil {
		t.Error("a folder was made through the link")
	}
	if _, err := openBeneath(root, out); err == nil {
		t.Error("a folder outside the root was opened")
	}
}
