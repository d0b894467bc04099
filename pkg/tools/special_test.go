//go:build unix

package tools

import (
	"context"
	"encoding/json"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"gopi/pkg/ai"
)

// noHangFailsafe is how long a call may take before the test calls it
// hung. It is no timing assertion: a call that does not block returns at
// once, and one blocked in open(2) on a pipe never returns at all.
const noHangFailsafe = 20 * time.Second

// runNoHang runs one call through a registry, under a context with a
// generous deadline, and fails the test if the call has not returned by
// the failsafe. unblock, when set, is a FIFO the failsafe opens read-write
// so a call stuck on it can finish and its goroutine end.
func runNoHang(t *testing.T, env *Env, tool Tool, args map[string]any, unblock string) Result {
	t.Helper()
	reg, err := NewRegistry(*env, tool)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	done := make(chan Result, 1)
	go func() { done <- reg.Execute(ctx, ai.ToolCallContent("call-1", tool.Spec().Name, raw), nil) }()
	select {
	case res := <-done:
		return res
	case <-time.After(noHangFailsafe):
		if unblock != "" {
			if f, err := os.OpenFile(unblock, os.O_RDWR|syscall.O_NONBLOCK, 0); err == nil {
				f.Close()
			}
		}
		t.Fatalf("%s %v did not return after %v: it blocks", tool.Spec().Name, args, noHangFailsafe)
		return Result{}
	}
}

// special makes one non-regular file at p and returns what it is called
// in the tools' messages.
type special struct {
	name string
	kind string
	make func(t *testing.T, p string)
}

var specials = []special{
	{"fifo", "a named pipe (FIFO)", func(t *testing.T, p string) {
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Fatal(err)
		}
	}},
	{"socket", "a socket", func(t *testing.T, p string) {
		// A short relative name keeps the socket address under its
		// 108-byte limit wherever the temp folder is.
		t.Chdir(filepath.Dir(p))
		l, err := net.Listen("unix", filepath.Base(p))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
	}},
	{"device", "a character device", makeNullDevice},
}

// makeNullDevice makes a character device like /dev/null at p. Without
// the right to make devices it links p to /dev/null itself, but only when
// /dev is not writable: a broken write tool could otherwise replace the
// machine's /dev/null.
func makeNullDevice(t *testing.T, p string) {
	err := syscall.Mknod(p, syscall.S_IFCHR|0o666, int(unix.Mkdev(1, 3)))
	if err == nil {
		return
	}
	if unix.Access("/dev", unix.W_OK) == nil {
		t.Skipf("cannot make a device (%v) and /dev is writable, so /dev/null is no safe stand-in", err)
	}
	if err := os.Symlink("/dev/null", p); err != nil {
		t.Fatal(err)
	}
}

// TestFileToolsRefuseSpecialFiles pins that read, write and edit never
// hang on a named pipe, a socket or a device (they used to block forever
// in open on a FIFO), refuse it with a message naming it, and leave it
// as it was: write must not replace it with a regular file.
func TestFileToolsRefuseSpecialFiles(t *testing.T) {
	tools := []struct {
		tool Tool
		args map[string]any
		verb string
	}{
		{NewRead(), map[string]any{}, "Cannot read"},
		{NewWrite(), map[string]any{"content": "data"}, "Cannot write"},
		{NewEdit(), map[string]any{"oldText": "a", "newText": "b"}, "Cannot edit"},
	}
	for _, sp := range specials {
		for _, via := range []string{"direct", "symlink"} {
			for _, tc := range tools {
				t.Run(sp.name+"/"+via+"/"+tc.tool.Spec().Name, func(t *testing.T) {
					env := testEnv(t)
					p := filepath.Join(env.Cwd, "special")
					sp.make(t, p)
					shown := "special"
					if via == "symlink" {
						shown = "link"
						os.Symlink("special", filepath.Join(env.Cwd, shown))
					}
					before := lstatAll(t, env.Cwd)
					args := map[string]any{"path": shown}
					for k, v := range tc.args {
						args[k] = v
					}
					res := runNoHang(t, env, tc.tool, args, p)
					if !res.IsError {
						t.Fatalf("not an error: %s", text(res))
					}
					wantContains(t, text(res), tc.verb+" "+shown+": it is "+sp.kind+", not a regular file")
					if after := lstatAll(t, env.Cwd); !slices.Equal(before, after) {
						t.Errorf("folder changed:\nbefore %v\nafter  %v", before, after)
					}
				})
			}
		}
	}
}

// TestReadRefusesDevNull pins the decision that /dev/null is refused like
// every other device rather than read as an empty file.
func TestReadRefusesDevNull(t *testing.T) {
	res := runNoHang(t, testEnv(t), NewRead(), map[string]any{"path": "/dev/null"}, "")
	if !res.IsError {
		t.Fatalf("not an error: %s", text(res))
	}
	wantContains(t, text(res), "Cannot read /dev/null: it is a character device, not a regular file", "use bash")
}

// lstatAll describes every entry of dir (name, type, permissions) so a
// test can see that nothing was added, removed or replaced.
func lstatAll(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		st, err := os.Lstat(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, e.Name()+" "+st.Mode().String())
	}
	return out
}

// TestSearchToolsSkipSpecialFiles pins that grep, find and ls walk or list
// a tree holding a FIFO (also as a .gitignore) without opening it: grep
// still finds the text in the regular files, find and ls list the pipe.
func TestSearchToolsSkipSpecialFiles(t *testing.T) {
	env := testEnv(t)
	os.Mkdir(filepath.Join(env.Cwd, "sub"), 0o755)
	for _, f := range []string{"pipe.txt", ".gitignore", "sub/.gitignore", "sub/pipe.txt"} {
		if err := syscall.Mkfifo(filepath.Join(env.Cwd, f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(env.Cwd, "a.txt"), []byte("one needle\n"), 0o644)
	os.WriteFile(filepath.Join(env.Cwd, "sub", "b.txt"), []byte("two needle\n"), 0o644)
	pipe := filepath.Join(env.Cwd, "pipe.txt")
	tests := []struct {
		name string
		tool Tool
		args map[string]any
		want string
	}{
		{"grep", NewGrep(), map[string]any{"pattern": "needle"}, "a.txt:1: one needle\nsub/b.txt:1: two needle"},
		{"grep glob", NewGrep(), map[string]any{"pattern": "needle", "glob": "*.txt"}, "a.txt:1: one needle\nsub/b.txt:1: two needle"},
		{"find", NewFind(), map[string]any{"pattern": "**/pipe.txt"}, "pipe.txt\nsub/pipe.txt"},
		{"ls", NewLs(), map[string]any{}, ".gitignore\na.txt\npipe.txt\nsub/"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := runNoHang(t, env, tc.tool, tc.args, pipe)
			if res.IsError || text(res) != tc.want {
				t.Errorf("got %v %q, want %q", res.IsError, text(res), tc.want)
			}
		})
	}
	res := runNoHang(t, env, NewGrep(), map[string]any{"pattern": "x", "path": "pipe.txt"}, pipe)
	if !res.IsError {
		t.Fatalf("grep on a pipe: %s", text(res))
	}
	wantContains(t, text(res), "Cannot search "+pipe+": it is a named pipe (FIFO), not a regular file")
	if st, err := os.Lstat(pipe); err != nil || st.Mode().Type() != fs.ModeNamedPipe {
		t.Errorf("pipe changed: %v %v", st, err)
	}
}

// TestOpenRegularChecksTheOpenedFile pins the second check: a descriptor
// that turns out not to be a regular file is refused and closed, never
// handed out (the path could be swapped for a pipe after the stat).
func TestOpenRegularChecksTheOpenedFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
	fd, err := openNonblock(p)
	if err != nil {
		t.Fatalf("a nonblocking open of a FIFO must not wait for a writer: %v", err)
	}
	defer syscall.Close(fd)
	err = regularFD(fd)
	if notRegular, _ := isNotRegular(err); !notRegular || err.Error() != "it is a named pipe (FIFO), not a regular file" {
		t.Fatalf("regularFD = %v", err)
	}
	if err := regularFDOf(t, "/dev/null"); err == nil || err.Error() != "it is a character device, not a regular file" {
		t.Errorf("/dev/null: %v", err)
	}
	file := filepath.Join(t.TempDir(), "f")
	os.WriteFile(file, []byte("x"), 0o644)
	fd, err = openNonblock(file)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	if err := regularFD(fd); err != nil {
		t.Fatalf("regular file refused: %v", err)
	}
	if flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0); err != nil || flags&unix.O_NONBLOCK != 0 {
		t.Errorf("O_NONBLOCK not cleared: flags %#x, %v", flags, err)
	}
}

func regularFDOf(t *testing.T, p string) error {
	t.Helper()
	fd, err := openNonblock(p)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	return regularFD(fd)
}
