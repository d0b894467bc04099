package sandbox

import (
	"path/filepath"
	"testing"
)

func TestRefusedName(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		// coreutils, in the C locale and in UTF-8 ones
		{"touch: cannot touch '/x/a b': Permission denied", "/x/a b"},
		{"mkdir: cannot create directory ‘/x/d’: Permission denied", "/x/d"},
		{"rm: cannot remove '/x/f': Read-only file system", "/x/f"},
		// bash's redirections
		{"bash: line 1: here.txt: Permission denied", "here.txt"},
		{"bash: /x/out: Permission denied", "/x/out"},
		// Go
		{"open /home/u/.cache/go-build/66/66b4-d: permission denied", "/home/u/.cache/go-build/66/66b4-d"},
		{"failed to initialize build cache at /h/.cache/go-build: mkdir /h/.cache: permission denied", "/h/.cache"},
		{"dial tcp 127.0.0.1:80: connect: permission denied", ""},
		{"mkdir /w/.git/x: read-only file system", "/w/.git/x"},
		// Python
		{"PermissionError: [Errno 13] Permission denied: '/x/p'", "/x/p"},
		{"OSError: [Errno 30] Read-only file system: '.git/q'", ".git/q"},
		{"PermissionError: [Errno 1] Operation not permitted: '/x/e'", "/x/e"},
		// Node
		{"Error: EACCES: permission denied, open '/x/n'", "/x/n"},
		{"[Error: EPERM: operation not permitted, mkdir '/x/m']", "/x/m"},
		// no file
		{"bash: connect: Permission denied", ""},
		{"bash: /dev/tcp/127.0.0.1/4000: Permission denied", ""},
		{"Permission denied", ""},
		{"ssh: Permission denied (publickey).", ""},
	} {
		if got := refusedName(c.line); got != c.want {
			t.Errorf("refusedName(%q) = %q, want %q", c.line, got, c.want)
		}
	}
}

func TestExplain(t *testing.T) {
	ws, tmp, out := t.TempDir(), t.TempDir(), t.TempDir()
	p := Policy{Mode: WorkspaceWrite, Writable: []string{ws}, TempDir: tmp, Network: false}
	outside := filepath.Join(out, "f")

	for _, c := range []struct {
		name, output string
		failed       bool
		denials      int
		target       string
	}{
		{"success prints a refusal", "touch: cannot touch '" + outside + "': Permission denied\n", false, 0, ""},
		{"failure writing outside", "touch: cannot touch '" + outside + "': Permission denied\n", true, 1, outside},
		{"go's lower case", "open " + outside + ": permission denied\n", true, 1, outside},
		{"one denial per path", "open " + outside + ": permission denied\nopen " + outside + ": permission denied\nopen " + out + "/g: permission denied\n", true, 2, outside},
		{"relative to the working folder", "bash: line 1: ../" + filepath.Base(out) + "/f: Permission denied\n", true, 1, outside},
		{"the workspace's own file permissions", "cat: '" + filepath.Join(ws, "locked.txt") + "': Permission denied\n", true, 0, ""},
		{"relative, maybe from another folder", "touch: cannot touch 'outside/x': Permission denied\n", true, 1, "cmd"},
		{"no path: the command", "bash: connect: Permission denied\n", true, 1, "cmd"},
		{"no refusal", "exit 1\n", true, 0, ""},
	} {
		g := New(p, nil, "")
		note := g.Explain("bash", "cmd", ws, c.output, c.failed)
		ds := g.Denials()
		if len(ds) != c.denials || (note != "") != (c.denials > 0) {
			t.Errorf("%s: %d denials %v, note %q; want %d", c.name, len(ds), ds, note, c.denials)
			continue
		}
		if c.denials > 0 && ds[0].Target != c.target {
			t.Errorf("%s: target %q, want %q", c.name, ds[0].Target, c.target)
		}
	}
}
