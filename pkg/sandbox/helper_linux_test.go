package sandbox_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"gopi/internal/fdcheck"
	"gopi/pkg/sandbox"
)

// sandboxed is a workspace-write guard whose helper is this test binary,
// closed when the test ends, with its workspace, a folder outside it and
// the private temp folder.
func sandboxed(t *testing.T) (g *sandbox.Guard, ws, out, tmp string) {
	t.Helper()
	fdcheck.Check(t)
	if _, err := sandbox.KernelProbe(); err != nil {
		t.Fatalf("this machine's kernel has Landlock (ABI 7); probe: %v", err)
	}
	dir := sandbox.RealPath(t.TempDir())
	ws, out, tmp = filepath.Join(dir, "ws"), filepath.Join(dir, "out"), filepath.Join(dir, "tmp")
	for _, d := range []string{ws, out} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	g = sandbox.New(sandbox.Policy{Mode: sandbox.WorkspaceWrite, Writable: []string{ws}, TempDir: tmp}, nil, self)
	t.Cleanup(g.Close)
	return g, ws, out, tmp
}

// run starts script in g's sandbox in dir and returns its output and end.
func run(t *testing.T, g *sandbox.Guard, dir, script string) (string, sandbox.Exit, error) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	p, err := g.Start(sandbox.Command{Path: "/bin/sh", Args: []string{"sh", "-c", script}, Env: []string{"PATH=/usr/bin:/bin", "TMPDIR=/tmp"}, Dir: dir, Stdout: w, Stderr: w})
	w.Close()
	if err != nil {
		return "", sandbox.Exit{}, err
	}
	b, _ := io.ReadAll(r)
	exit, err := p.Wait()
	return string(b), exit, err
}

// TestHelper runs commands through the helper (this test binary) and
// checks the file system afterwards: a write in the workspace and in
// $TMPDIR work, one outside is refused; the exit code comes back.
func TestHelper(t *testing.T) {
	g, ws, out, tmp := sandboxed(t)
	got, exit, err := run(t, g, ws, `echo in > in.txt; echo out > ../out/out.txt; echo t > "$TMPDIR/t"; echo done; exit 3`)
	if err != nil || !strings.Contains(got, "done") || exit.Code != 3 || exit.Signal != nil {
		t.Fatalf("%v %+v: %s", err, exit, got)
	}
	if !refused(got) {
		t.Fatalf("the write outside was not refused: %s", got)
	}
	for path, want := range map[string]bool{filepath.Join(ws, "in.txt"): true, filepath.Join(out, "out.txt"): false, filepath.Join(tmp, "t"): true} {
		if _, err := os.Stat(path); (err == nil) != want {
			t.Errorf("%s exists %v, want %v", path, err == nil, want)
		}
	}
	// A command holds only its stdio (ls lists the folder it reads too):
	// neither the helper's socket nor another command's files.
	got, _, err = run(t, g, ws, `ls /proc/self/fd`)
	if err != nil || got != "0\n1\n2\n3\n" {
		t.Fatalf("a command's descriptors: %v %q", err, got)
	}
	// A command killed by a signal says so; its stdin is /dev/null.
	got, exit, err = run(t, g, ws, `cat; kill -TERM $$`)
	if err != nil || exit.Signal != syscall.SIGTERM || got != "" {
		t.Fatalf("%v %+v: %q", err, exit, got)
	}
}

// TestOneHelperPerRun: the commands of a run are children of one helper
// (not of this process); the helper leads a process group other than the
// commands', each of which leads its own. After Close the helper is gone
// and nothing more runs.
func TestOneHelperPerRun(t *testing.T) {
	g, ws, _, _ := sandboxed(t)
	var parents []int
	for i := 0; i < 3; i++ {
		got, exit, err := run(t, g, ws, `set -- $(cat /proc/$$/stat); echo $PPID $1 $5`)
		if err != nil || exit.Code != 0 {
			t.Fatalf("%v %+v: %s", err, exit, got)
		}
		f := strings.Fields(got)
		if len(f) != 3 {
			t.Fatalf("output %q", got)
		}
		parents = append(parents, atoi(t, f[0]))
		if f[1] != f[2] {
			t.Errorf("the command %s leads group %s, not its own", f[1], f[2])
		}
	}
	helper := parents[0]
	if helper == os.Getpid() || parents[1] != helper || parents[2] != helper {
		t.Fatalf("the commands' parents are %v (this process %d): want one helper", parents, os.Getpid())
	}
	if pg, err := syscall.Getpgid(helper); err != nil || pg != helper {
		t.Errorf("the helper %d is in group %d (%v), want its own", helper, pg, err)
	}
	g.Close()
	if err := syscall.Kill(helper, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("the helper %d is still there after Close: %v", helper, err)
	}
	if _, _, err := run(t, g, ws, `touch after`); !errors.Is(err, sandbox.ErrClosed) {
		t.Errorf("a command after Close: %v", err)
	}
	if _, err := os.Stat(filepath.Join(ws, "after")); err == nil {
		t.Error("a command ran after Close")
	}
}

// TestHelperDiesFailsClosed: a command whose helper is killed while it
// runs ends with ErrHelperEnded; the next command gets a new helper,
// confined as the first was. A helper that cannot start fails the
// command, and nothing runs.
func TestHelperDiesFailsClosed(t *testing.T) {
	g, ws, out, _ := sandboxed(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	p, err := g.Start(sandbox.Command{Path: "/bin/sh", Args: []string{"sh", "-c", `echo $PPID; exec sleep 600`}, Dir: ws, Stdout: w, Stderr: w})
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(-p.Pid, syscall.SIGKILL)
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	first := atoi(t, strings.TrimSpace(line))
	if err := syscall.Kill(first, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Wait(); !errors.Is(err, sandbox.ErrHelperEnded) {
		t.Fatalf("Wait after the helper died: %v", err)
	}
	got, exit, err := run(t, g, ws, `echo $PPID; touch ../out/x`)
	if err != nil || exit.Code == 0 || !refused(got) {
		t.Fatalf("the next command: %v %+v: %s", err, exit, got)
	}
	if second := atoi(t, strings.Fields(got)[0]); second == first {
		t.Errorf("the next command ran under the dead helper %d", first)
	}
	if _, err := os.Stat(filepath.Join(out, "x")); err == nil {
		t.Error("the next command wrote outside the workspace")
	}

	for _, exe := range []string{"/bin/false", filepath.Join(ws, "missing")} {
		bad := sandbox.New(g.Policy(), nil, exe)
		_, _, err := run(t, bad, ws, `touch ran`)
		bad.Close()
		if err == nil || !strings.Contains(err.Error(), "the command did not run") {
			t.Errorf("helper %s: %v", exe, err)
		}
		if _, err := os.Stat(filepath.Join(ws, "ran")); err == nil {
			t.Fatalf("helper %s: the command ran", exe)
		}
	}
}

// TestHelperExitsOnEOF: the helper, started as gopi starts it, says it is
// ready and exits by itself (status 0, not a signal) when the other end
// of its socket is closed.
func TestHelperExitsOnEOF(t *testing.T) {
	fdcheck.Check(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	mine, theirs := os.NewFile(uintptr(fds[0]), "mine"), os.NewFile(uintptr(fds[1]), "theirs")
	defer mine.Close()
	doc, _ := json.Marshal(sandbox.Policy{Mode: sandbox.ReadOnly, TempDir: t.TempDir()})
	cmd := exec.Command(self, sandbox.HelperArg, string(doc))
	cmd.ExtraFiles = []*os.File{theirs}
	err = cmd.Start()
	theirs.Close()
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, err := mine.Read(buf)
	if err != nil || string(buf[:n]) != "ready" {
		t.Fatalf("%v %q", err, buf[:n])
	}
	mine.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the helper after EOF: %v", err)
	}
}

// TestHelperDiesWithItsParent: when the process that started the helper
// is killed, the helper ends too, and so does every process its commands
// left running: in the background, in a new session, a command still
// running.
func TestHelperDiesWithItsParent(t *testing.T) {
	fdcheck.Check(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), "SANDBOX_TEST_PARENT="+sandbox.RealPath(t.TempDir()))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	rd := bufio.NewReader(stdout)
	var pids []int
	for range 4 { // the helper, a background sleep, a setsid sleep, the running command
		line, err := rd.ReadString('\n')
		if err != nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatalf("the parent's pids: %v %q", err, line)
		}
		pids = append(pids, atoi(t, strings.TrimSpace(line)))
	}
	var pidfds []int
	for _, pid := range pids {
		pidfd, err := unix.PidfdOpen(pid, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer unix.Close(pidfd)
		pidfds = append(pidfds, pidfd)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	// A pidfd becomes readable when its process exits; -1: no time limit
	// (the test's own deadline is the bound).
	for i, pidfd := range pidfds {
		fds := []unix.PollFd{{Fd: int32(pidfd), Events: unix.POLLIN}}
		for {
			n, err := unix.Poll(fds, -1)
			if errors.Is(err, unix.EINTR) {
				continue
			}
			if err != nil || n != 1 {
				t.Fatalf("poll %d (%d): %d %v", i, pids[i], n, err)
			}
			break
		}
	}
}

// parentMain is the process TestHelperDiesWithItsParent kills: it starts
// one sandboxed command, which leaves two sleeps running, and another
// that runs on; it prints its helper's pid and theirs and waits on stdin.
func parentMain(dir string) int {
	self, _ := os.Executable()
	g := sandbox.New(sandbox.Policy{Mode: sandbox.WorkspaceWrite, Writable: []string{dir}, TempDir: filepath.Join(dir, "tmp")}, nil, self)
	r, w, _ := os.Pipe()
	p, err := g.Start(sandbox.Command{Path: "/bin/sh", Args: []string{"sh", "-c", `echo $PPID; sleep 300 >/dev/null 2>&1 & echo $!; setsid sleep 300 >/dev/null 2>&1 & echo $!`}, Dir: dir, Stdout: w, Stderr: w})
	w.Close()
	if err != nil {
		return 1
	}
	b, _ := io.ReadAll(r)
	_, _ = p.Wait()
	os.Stdout.Write(b)
	running, err := g.Start(sandbox.Command{Path: "/bin/sleep", Args: []string{"sleep", "300"}, Dir: dir, Stdout: os.Stderr, Stderr: os.Stderr})
	if err != nil {
		return 1
	}
	fmt.Println(running.Pid)
	_, _ = io.ReadAll(os.Stdin)
	return 0
}

// refused reports whether a command's output shows a write the sandbox
// refused: Landlock's EACCES, or EROFS of the read-only mounts outside
// the writable folders.
func refused(out string) bool {
	return strings.Contains(out, "Permission denied") || strings.Contains(out, "Read-only file system")
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("%q is not a number", s)
	}
	return n
}

// BenchmarkStart is the cost of starting and waiting for one command
// (/bin/true, its output in a pipe): directly, as a command without the
// sandbox starts, and through the run's helper (started before the timed
// loop), which is what the sandbox adds to each command.
func BenchmarkStart(b *testing.B) {
	dir := sandbox.RealPath(b.TempDir())
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	env := os.Environ()
	for _, how := range []string{"direct", "helper"} {
		b.Run(how, func(b *testing.B) {
			g := sandbox.New(sandbox.Policy{Mode: sandbox.WorkspaceWrite, Writable: []string{dir}, TempDir: filepath.Join(dir, "tmp")}, nil, self)
			defer g.Close()
			one := func() {
				r, w, err := os.Pipe()
				if err != nil {
					b.Fatal(err)
				}
				defer r.Close()
				if how == "direct" {
					cmd := exec.Command("/bin/true")
					cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, env, w, w
					cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
					err = cmd.Start()
					w.Close()
					if err == nil {
						err = cmd.Wait()
					}
				} else {
					var p *sandbox.Process
					p, err = g.Start(sandbox.Command{Path: "/bin/true", Args: []string{"true"}, Env: env, Dir: dir, Stdout: w, Stderr: w})
					w.Close()
					if err == nil {
						var exit sandbox.Exit
						exit, err = p.Wait()
						if exit.Code != 0 {
							err = errors.New("exit code " + strconv.Itoa(exit.Code))
						}
					}
				}
				if err != nil {
					b.Fatal(err)
				}
			}
			one() // the helper's start is not in the loop
			for b.Loop() {
				one()
			}
		})
	}
}

// TestHelperPerPolicy: a .git that appears during a run is read-only for
// the commands after it (they get another helper, with .git mounted
// read-only), and a guard with another policy in the same process has
// its own helper with its own rules.
func TestHelperPerPolicy(t *testing.T) {
	g, ws, _, _ := sandboxed(t)
	got, exit, err := run(t, g, ws, `mkdir .git && echo $PPID`)
	if err != nil || exit.Code != 0 {
		t.Fatalf("%v %+v: %s", err, exit, got)
	}
	first := atoi(t, strings.TrimSpace(got))
	got, exit, err = run(t, g, ws, `echo $PPID; touch .git/x; touch y`)
	if err != nil || exit.Code != 0 || !strings.Contains(got, "Read-only file system") {
		t.Fatalf("a write into the new .git: %v %+v: %s", err, exit, got)
	}
	second := atoi(t, strings.Fields(got)[0])
	if second == first {
		t.Errorf("the command ran under the helper started before .git existed")
	}
	if _, err := os.Stat(filepath.Join(ws, ".git", "x")); err == nil {
		t.Error(".git/x was written")
	}
	if _, err := os.Stat(filepath.Join(ws, "y")); err != nil {
		t.Errorf("the workspace is not writable under the new helper: %v", err)
	}

	self, _ := os.Executable()
	ro := sandbox.New(sandbox.Policy{Mode: sandbox.ReadOnly, TempDir: g.Policy().TempDir}, nil, self)
	t.Cleanup(ro.Close)
	got, exit, err = run(t, ro, ws, `echo $PPID; touch z`)
	if err != nil || exit.Code == 0 || !refused(got) {
		t.Fatalf("read-only: %v %+v: %s", err, exit, got)
	}
	if p := atoi(t, strings.Fields(got)[0]); p == first || p == second {
		t.Error("the read-only guard used the workspace-write guard's helper")
	}
	got, exit, err = run(t, g, ws, `touch z2`)
	if err != nil || exit.Code != 0 {
		t.Fatalf("workspace-write after read-only: %v %+v: %s", err, exit, got)
	}
}

// TestConfigReadOnly: the project's configuration at the top of a
// writable root (.gopi/, .pi/, mcp.json, .mcp.json) is read-only to
// commands and refused to the file tools, as .git is, also where it does
// not exist yet for the tools; allowConfig lets both write it.
func TestConfigReadOnly(t *testing.T) {
	g, ws, _, _ := sandboxed(t)
	for _, d := range []string{".gopi", ".pi"} {
		if err := os.Mkdir(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{".gopi/settings.json", ".pi/settings.json", "mcp.json", ".mcp.json"} {
		if err := os.WriteFile(filepath.Join(ws, f), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, exit, err := run(t, g, ws, `for f in .gopi/settings.json .gopi/hooks.sh .pi/settings.json mcp.json .mcp.json; do echo x > $f; done; mv mcp.json moved.json; rm -r .gopi; touch ok`)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(got, "Read-only file system") < 6 || !strings.Contains(got, "mcp.json") {
		t.Fatalf("writes to the configuration: %+v: %s", exit, got)
	}
	for _, f := range []string{".gopi/settings.json", ".pi/settings.json", "mcp.json", ".mcp.json"} {
		if b, err := os.ReadFile(filepath.Join(ws, f)); err != nil || string(b) != "{}" {
			t.Errorf("%s: %q %v", f, b, err)
		}
	}
	if _, err := os.Stat(filepath.Join(ws, ".gopi", "hooks.sh")); err == nil {
		t.Error(".gopi/hooks.sh was made")
	}
	if _, err := os.Stat(filepath.Join(ws, "ok")); err != nil {
		t.Errorf("the rest of the workspace is not writable: %v", err)
	}
	for _, f := range []string{".gopi/settings.json", ".pi/prompts/p.md", "mcp.json", ".mcp.json", ".gopi"} {
		err := g.Permit("write", sandbox.OpWrite, filepath.Join(ws, f))
		var d *sandbox.DeniedError
		if !errors.As(err, &d) || !strings.Contains(d.Denial.Rule, "the project's configuration") || !strings.Contains(d.Denial.Allow, `"allowConfig": true`) {
			t.Errorf("write %s: %v", f, err)
		}
	}
	if err := g.Permit("write", sandbox.OpWrite, filepath.Join(ws, "sub", ".gopi", "x")); err != nil {
		t.Errorf("a .gopi below the top: %v", err)
	}

	self, _ := os.Executable()
	p := g.Policy()
	p.AllowConfig = true
	open := sandbox.New(p, nil, self)
	t.Cleanup(open.Close)
	if got, exit, err := run(t, open, ws, `echo y > .gopi/settings.json && echo y > mcp.json`); err != nil || exit.Code != 0 {
		t.Fatalf("allowConfig: %v %+v: %s", err, exit, got)
	}
	if err := open.Permit("write", sandbox.OpWrite, filepath.Join(ws, ".mcp.json")); err != nil {
		t.Errorf("allowConfig, write tool: %v", err)
	}
}

// TestSessionReadOnly: the run's session, kept read-only, cannot be
// emptied or replaced by a command nor written by the tools; its folder
// when it lies below the workspace, the file alone when the workspace is
// its folder.
func TestSessionReadOnly(t *testing.T) {
	g, ws, _, _ := sandboxed(t)
	sessions := filepath.Join(ws, "sessions")
	if err := os.Mkdir(sessions, 0o755); err != nil {
		t.Fatal(err)
	}
	live, other, top := filepath.Join(sessions, "live.jsonl"), filepath.Join(sessions, "other.jsonl"), filepath.Join(ws, "top.jsonl")
	for _, f := range []string{live, other, top, top + ".lock"} {
		if err := os.WriteFile(f, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	g.KeepReadOnly(live)
	g.KeepReadOnly(top)
	got, _, err := run(t, g, ws, `for f in sessions/*.jsonl top.jsonl top.jsonl.lock; do printf "" > $f; done; rm -f top.jsonl top.jsonl.lock sessions/live.jsonl; touch sessions/new; touch ok`)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{live, other, top, top + ".lock"} {
		if b, err := os.ReadFile(f); err != nil || string(b) != "{}\n" {
			t.Errorf("%s: %q %v (%s)", f, b, err, got)
		}
	}
	if _, err := os.Stat(filepath.Join(sessions, "new")); err == nil {
		t.Error("a file was made in the session folder")
	}
	if _, err := os.Stat(filepath.Join(ws, "ok")); err != nil {
		t.Errorf("the workspace is not writable: %v: %s", err, got)
	}
	for _, f := range []string{live, filepath.Join(sessions, "x"), top, top + ".lock"} {
		var d *sandbox.DeniedError
		if err := g.Permit("write", sandbox.OpWrite, f); !errors.As(err, &d) || !strings.Contains(d.Denial.Rule, "the run's session") || !strings.Contains(d.Denial.Allow, "--session-dir") {
			t.Errorf("write %s: %v", f, err)
		}
	}
	if err := g.Permit("write", sandbox.OpWrite, filepath.Join(ws, "top2.jsonl")); err != nil {
		t.Errorf("a file beside the kept one: %v", err)
	}
}

// TestMetadataConfined: Landlock does not cover a file's metadata, so
// the helper mounts everything but the writable folders read-only (no
// mode or time changed outside, not even of a file the command's user
// owns), gives its commands no capability (no owner, mode or time of
// another user's file changed; no chown), refuses setuid and setgid bits
// and extended attributes everywhere (seccomp), and cannot be traced or
// read by them (not dumpable). In both modes; chmod +x in the workspace
// still works.
func TestMetadataConfined(t *testing.T) {
	if os.Getuid() != 0 {
		t.Fatal("this test runs as root, as the machine's tests do: it needs files of another owner")
	}
	g, ws, out, _ := sandboxed(t)
	self, _ := os.Executable()
	ro := sandbox.New(sandbox.Policy{Mode: sandbox.ReadOnly, TempDir: g.Policy().TempDir}, nil, self)
	t.Cleanup(ro.Close)
	theirs, mine := filepath.Join(out, "theirs"), filepath.Join(out, "mine")
	for _, f := range []string{theirs, mine} {
		if err := os.WriteFile(f, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chown(theirs, 1234, 1234); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "script"), []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := `
chmod 000 ../out/theirs; echo "chmod theirs $?"
chown 0:0 ../out/theirs; echo "chown theirs $?"
chown 1234 ../out/mine; echo "chown mine $?"
touch -m -d 2001-01-01 ../out/theirs; echo "utime theirs $?"
chmod 000 ../out/mine; echo "chmod mine $?"
touch -m -d 2001-01-01 ../out/mine; echo "utime mine $?"
chmod 4755 ../out/mine; echo "setuid mine $?"
chmod g+s ../out/mine; echo "setgid mine $?"
chmod +x script; echo "chmod+x script $?"
chmod u+s script; echo "setuid script $?"
python3 -c 'import os; os.setxattr("../out/mine", "user.x", b"1")' 2>/dev/null; echo "setxattr mine $?"
python3 -c 'import os; os.close(os.open("suid", os.O_CREAT|os.O_WRONLY, 0o4755))' 2>/dev/null; echo "create suid $?"
cat /proc/$PPID/environ >/dev/null 2>&1; echo "read helper $?"
python3 -c 'import ctypes; libc = ctypes.CDLL(None, use_errno=True); print("io_uring", libc.syscall(425, 1, ctypes.create_string_buffer(128)), ctypes.get_errno())'
python3 -c '
import ctypes, os, sys
libc, helper = ctypes.CDLL(None), int(sys.argv[1])
r = libc.ptrace(16, helper, 0, 0)  # PTRACE_ATTACH
if r == 0:  # let it go again: PTRACE_DETACH once it stopped
    os.waitpid(helper, 0x40000000)
    libc.ptrace(17, helper, 0, 0)
print("ptrace helper", r)' $PPID
grep -E '^Cap(Eff|Prm|Bnd|Amb)' /proc/self/status
`
	for _, c := range []struct {
		name string
		g    *sandbox.Guard
	}{{"workspace-write", g}, {"read-only", ro}} {
		got, _, err := run(t, c.g, ws, script)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range []string{"chmod theirs 1", "chown theirs 1", "chown mine 1", "utime theirs 1", "chmod mine 1", "utime mine 1", "setuid mine 1", "setgid mine 1", "setxattr mine 1", "read helper 1", "ptrace helper -1", "io_uring -1 38",
			"CapEff:\t0000000000000000", "CapPrm:\t0000000000000000", "CapBnd:\t0000000000000000", "CapAmb:\t0000000000000000"} {
			if !strings.Contains(got, line+"\n") {
				t.Errorf("%s: no %q in\n%s", c.name, line, got)
			}
		}
		if c.name == "workspace-write" {
			for _, line := range []string{"chmod+x script 0", "setuid script 1", "create suid 1"} {
				if !strings.Contains(got, line+"\n") {
					t.Errorf("%s: no %q in\n%s", c.name, line, got)
				}
			}
		}
	}
	st, _ := os.Stat(theirs)
	if sys := st.Sys().(*syscall.Stat_t); st.Mode() != 0o755 || sys.Uid != 1234 || st.ModTime().Year() == 2001 {
		t.Errorf("theirs: %v owner %d, %v", st.Mode(), sys.Uid, st.ModTime())
	}
	st, _ = os.Stat(mine)
	if sys := st.Sys().(*syscall.Stat_t); st.Mode() != 0o755 || sys.Uid != 0 || st.ModTime().Year() == 2001 {
		t.Errorf("mine: %v owner %d, %v", st.Mode(), sys.Uid, st.ModTime())
	}
	if st, _ := os.Stat(filepath.Join(ws, "script")); st.Mode() != 0o755 {
		t.Errorf("script: %v, want 0755 (chmod +x)", st.Mode())
	}
	if st, err := os.Stat(filepath.Join(ws, "suid")); err == nil && st.Mode()&os.ModeSetuid != 0 {
		t.Errorf("a setuid file was made: %v", st.Mode())
	}
}

// TestHelperWithoutNamespace: where the kernel lets the helper have no
// mounts in its namespace, it starts again without one, still confined by
// Landlock, unless an entry must be kept read-only: then the command
// fails and does not run.
func TestHelperWithoutNamespace(t *testing.T) {
	g, ws, out, _ := sandboxed(t)
	self, _ := os.Executable()
	// A helper refused the mounts: it says so, as the real one does.
	exe := filepath.Join(filepath.Dir(g.Policy().TempDir), "helper.sh")
	script := "#!/bin/sh\ncase \"$2\" in *readOnlyOutside*) printf 'no mounts: private mounts: operation not permitted' >&3; exit 126;; esac\nexec " + self + " \"$@\"\n"
	if err := os.WriteFile(exe, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	refusing := sandbox.New(g.Policy(), nil, exe)
	t.Cleanup(refusing.Close)
	got, exit, err := run(t, refusing, ws, `touch in; touch ../out/x; echo ran`)
	if err != nil || !strings.Contains(got, "ran") || !refused(got) || exit.Code != 0 {
		t.Fatalf("without a namespace: %v %+v: %s", err, exit, got)
	}
	if _, err := os.Stat(filepath.Join(out, "x")); err == nil {
		t.Error("a command without the namespace wrote outside the workspace")
	}
	if err := os.Mkdir(filepath.Join(ws, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	// The refusal names what to change.
	_, _, err = run(t, refusing, ws, `touch .git/x`)
	for _, want := range []string{"no mounts", filepath.Join(ws, ".git"), "kernel.apparmor_restrict_unprivileged_userns=0", "kernel.unprivileged_userns_clone=1", "user.max_user_namespaces", "--sandbox off"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("with a .git to keep: no %q in %v", want, err)
		}
	}
	if _, err := os.Stat(filepath.Join(ws, ".git", "x")); err == nil {
		t.Error("the command ran without its .git kept read-only")
	}
}

// TestHelperAsUser: for a user other than root, the helper is root of a
// namespace of its own only to make its mounts; the commands run as that
// user (their own uid and gid), with .git and everything outside the
// workspace read-only mounts (not even the mode of the user's own file
// outside changes), the workspace writable and a write outside refused.
// Run as root, it runs this test and the other helper tests again as
// nobody (65534); as another user, as that user.
func TestHelperAsUser(t *testing.T) {
	if os.Getuid() == 0 {
		asNobody(t)
		return
	}
	g, ws, out, _ := sandboxed(t)
	if err := os.Mkdir(filepath.Join(ws, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	head, mine := filepath.Join(ws, ".git", "HEAD"), filepath.Join(out, "mine")
	for _, f := range []string{head, mine} {
		if err := os.WriteFile(f, []byte("ref\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, exit, err := run(t, g, ws, `id -u; id -g
echo x > .git/HEAD || echo "git refused"
echo in > in.txt && echo "workspace written"
echo x > ../out/x || echo "outside refused"
chmod 600 ../out/mine || echo "chmod mine refused"
unshare -Urm sh -c 'mount -o remount,bind,rw .git; umount .git; echo x > .git/HEAD' 2>&1 || echo "remount refused"
outer=$(awk '/^PPid/ {print $2}' /proc/$PPID/status)
for h in $PPID $outer; do grep -E '^(Uid|CapEff)' /proc/$h/status; cat /proc/$h/environ >/dev/null 2>&1 || echo "helper $h unreadable"; done
python3 -c '
import ctypes, os, sys
libc = ctypes.CDLL(None)
for helper in map(int, sys.argv[1:]):
    r = libc.ptrace(16, helper, 0, 0)  # PTRACE_ATTACH
    if r == 0:
        os.waitpid(helper, 0x40000000)
        libc.ptrace(17, helper, 0, 0)
    print("ptrace helper", r)' $PPID $outer
grep -E '^CapEff' /proc/self/status`)
	if err != nil || exit.Code != 0 {
		t.Fatalf("%v %+v: %s", err, exit, got)
	}
	want := fmt.Sprintf("%d\n%d\n", os.Getuid(), os.Getgid())
	if !strings.HasPrefix(got, want) {
		t.Errorf("the command's ids: want %q first in\n%s", want, got)
	}
	for _, line := range []string{"git refused", "workspace written", "outside refused", "chmod mine refused", "CapEff:\t0000000000000000", "remount refused"} {
		if !strings.Contains(got, line+"\n") {
			t.Errorf("no %q in\n%s", line, got)
		}
	}
	if strings.Count(got, "Read-only file system") < 2 {
		t.Errorf(".git and the outside are not read-only mounts:\n%s", got)
	}
	if b, err := os.ReadFile(head); err != nil || string(b) != "ref\n" {
		t.Errorf(".git/HEAD: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(ws, "in.txt")); err != nil {
		t.Errorf("the workspace write: %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, "x")); err == nil {
		t.Error("a command wrote outside the workspace")
	}
	if st, err := os.Stat(mine); err != nil || st.Mode() != 0o644 {
		t.Errorf("the user's file outside: %v %v", st.Mode(), err)
	}
}

// asNobody runs TestHelperAsUser and the helper's other tests again in
// a copy of this test binary as the user nobody (65534), in a folder that
// user owns.
func asNobody(t *testing.T) {
	tests := []string{"TestHelperAsUser", "TestHelper", "TestOneHelperPerRun", "TestHelperDiesFailsClosed", "TestHelperExitsOnEOF",
		"TestHelperDiesWithItsParent", "TestHelperPerPolicy", "TestConfigReadOnly", "TestSessionReadOnly", "TestHelperWithoutNamespace"}
	const nobody = 65534
	dir := t.TempDir()
	for d := dir; d != filepath.Dir(d) && strings.HasPrefix(d, os.TempDir()+"/"); d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	exe, work := filepath.Join(dir, "sandbox.test"), filepath.Join(dir, "work")
	if err := os.WriteFile(exe, b, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(work, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^("+strings.Join(tests, "|")+")$", "-test.count=1", "-test.v")
	cmd.Dir = work
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + work, "TMPDIR=" + work}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	got, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("as nobody: %v\n%s", err, got)
	}
	for _, name := range tests {
		if !strings.Contains(string(got), "--- PASS: "+name+" ") {
			t.Errorf("as nobody, %s did not pass:\n%s", name, got)
		}
	}
}

// A guard closed before its first command starts none, and makes none of
// the run's folders (the run that owned them has removed them).
func TestNothingStartsAfterClose(t *testing.T) {
	g, ws, _, tmp := sandboxed(t)
	g.Close()
	if _, _, err := run(t, g, ws, `touch after`); !errors.Is(err, sandbox.ErrClosed) {
		t.Errorf("a command after Close: %v, want the guard closed", err)
	}
	for _, p := range []string{filepath.Join(ws, "after"), tmp} {
		if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s exists after Close: %v", p, err)
		}
	}
}
