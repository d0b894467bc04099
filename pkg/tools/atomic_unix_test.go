//go:build unix

package tools

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestReplaceKeepsModeAndOwner pins that write and edit, now replacing the
// file with a new one, give it the old file's mode and owner.
func TestReplaceKeepsModeAndOwner(t *testing.T) {
	for _, mode := range []fs.FileMode{0o600, 0o755, 0o640 | fs.ModeSetgid} {
		for _, c := range changers(replaceOps{}) {
			t.Run(c.tool.Spec().Name+"/"+mode.String(), func(t *testing.T) {
				env := testEnv(t)
				p := filepath.Join(env.Cwd, "f.txt")
				os.WriteFile(p, []byte("old line\n"), 0o600)
				if err := os.Chmod(p, mode); err != nil {
					t.Fatal(err)
				}
				uid, gid := 1234, 5678
				if err := os.Chown(p, uid, gid); err != nil {
					uid, gid = os.Getuid(), os.Getgid() // not root: the owner is ours
				}
				res := runTool(t, env, c.tool, c.args)
				if res.IsError {
					t.Fatal(text(res))
				}
				wantFile(t, p, "new line\n")
				st, _ := os.Stat(p)
				if st.Mode() != mode {
					t.Errorf("mode %v, want %v", st.Mode(), mode)
				}
				if sys := st.Sys().(*syscall.Stat_t); int(sys.Uid) != uid || int(sys.Gid) != gid {
					t.Errorf("owner %d:%d, want %d:%d", sys.Uid, sys.Gid, uid, gid)
				}
				wantEntries(t, env.Cwd, "f.txt")
			})
		}
	}
}
