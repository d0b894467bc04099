package sandbox_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gopi/pkg/sandbox"
)

// TestHelper runs commands through the helper (this test binary) and
// checks the file system afterwards.
func TestHelper(t *testing.T) {
	if _, err := sandbox.KernelProbe(); err != nil {
		t.Fatalf("this machine's kernel has Landlock (ABI 7); probe: %v", err)
	}
	dir := sandbox.RealPath(t.TempDir())
	ws, out := filepath.Join(dir, "ws"), filepath.Join(dir, "out")
	for _, d := range []string{ws, out} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	g := sandbox.New(sandbox.Policy{Mode: sandbox.WorkspaceWrite, Writable: []string{ws}, TempDir: filepath.Join(dir, "tmp")}, nil, self)
	cmd := exec.Command("/bin/sh", "-c", `echo in > in.txt; echo out > ../out/out.txt; echo t > "$TMPDIR/t"; echo done`)
	cmd.Dir = ws
	if err := g.Wrap(cmd); err != nil {
		t.Fatal(err)
	}
	b, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(b), "done") {
		t.Fatalf("%v: %s", err, b)
	}
	if !strings.Contains(string(b), "Permission denied") {
		t.Fatalf("the write outside was not refused: %s", b)
	}
	for path, want := range map[string]bool{filepath.Join(ws, "in.txt"): true, filepath.Join(out, "out.txt"): false, filepath.Join(dir, "tmp", "t"): true} {
		if _, err := os.Stat(path); (err == nil) != want {
			t.Errorf("%s exists %v, want %v", path, err == nil, want)
		}
	}
}
