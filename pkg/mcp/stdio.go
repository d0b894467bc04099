package mcp

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
)

// Bounds of stopping a stdio server: after its stdin closes it has
// stopGrace (a second) to exit, then as long again after SIGTERM to its process
// group, then SIGKILL.
const stopGrace = time.Second

// stderrTail is how much of a server's stderr is kept for messages.
const stderrTail = 4 << 10

// proc is a running stdio server: its process group and the pipes.
type proc struct {
	cmd    *exec.Cmd
	group  *procGroup
	stdin  *os.File // our end
	stdout *os.File // our end
	tail   *tailBuffer
	exited chan struct{} // closed when the process has been waited for
	status string        // how it ended, once exited is closed
	errEOF chan struct{} // closed when its stderr is read to the end
}

// startProc runs s's command with environ and the server's own
// variables (expanded with getenv).
func startProc(f *forker, s Server, environ []string, getenv func(string) string) (*proc, error) {
	env := append([]string(nil), environ...)
	for _, k := range sortedKeys(s.Env) {
		v, err := expand(s.Env[k], getenv)
		if err != nil {
			return nil, fmt.Errorf("env %s: %v", k, err)
		}
		env = setEnv(env, k, v)
	}
	path, err := lookPath(s.Command, env, s.Cwd)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(path, s.Args...)
	cmd.Args[0] = s.Command
	cmd.Env, cmd.Dir = env, s.Cwd
	group := ownGroup(cmd)
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW)
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW, outR, outW)
		return nil, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	if err := group.start(f); err != nil {
		closeAll(inR, inW, outR, outW, errR, errW)
		return nil, err
	}
	closeAll(inR, outW, errW) // the child's ends
	p := &proc{cmd: cmd, group: group, stdin: inW, stdout: outR, tail: &tailBuffer{max: stderrTail}, exited: make(chan struct{}), errEOF: make(chan struct{})}
	go func() {
		defer close(p.errEOF)
		_, _ = io.Copy(p.tail, errR)
		errR.Close()
	}()
	go func() {
		err := cmd.Wait()
		p.status = exitStatus(err)
		close(p.exited)
	}()
	return p, nil
}

// stop ends the server: stdin closed, then SIGTERM and SIGKILL to its
// process group, each after a bounded wait; what it left in its group is
// killed too. It reports whether the server ended within the bounds.
func (p *proc) stop() bool {
	p.stdin.Close()
	ended := p.waitExit(stopGrace)
	if !ended {
		p.group.terminate()
		if ended = p.waitExit(stopGrace); !ended {
			p.group.kill()
			ended = p.waitExit(stopGrace)
		}
	}
	p.group.kill() // whatever the server left running in its group
	p.group.release()
	p.stdout.Close()
	select { // stderr ends when the last process holding it does
	case <-p.errEOF:
	case <-time.After(stopGrace):
	}
	return ended
}

func (p *proc) waitExit(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.exited:
		return true
	case <-t.C:
		return false
	}
}

// exitStatus says how a process ended.
func exitStatus(err error) string {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return "exited with code 0"
	case errors.As(err, &ee):
		if ee.Exited() {
			return fmt.Sprintf("exited with code %d", ee.ExitCode())
		}
		return "was ended by a signal (" + ee.Error() + ")"
	}
	return err.Error()
}

// lookPath finds command as the server's environment's PATH would.
func lookPath(command string, env []string, dir string) (string, error) {
	if strings.ContainsRune(command, filepath.Separator) || (runtime.GOOS == "windows" && strings.ContainsRune(command, '/')) {
		p := command
		if !filepath.IsAbs(p) && dir != "" {
			p = filepath.Join(dir, p)
		}
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("command %s: %v", command, errors.Unwrap(err))
		}
		return p, nil
	}
	path := ""
	for _, kv := range env {
		if k, v, _ := strings.Cut(kv, "="); k == "PATH" {
			path = v
		}
	}
	for _, d := range filepath.SplitList(path) {
		if d == "" {
			d = "."
		}
		for _, ext := range exeExts() {
			p := filepath.Join(d, command+ext)
			if st, err := os.Stat(p); err == nil && !st.IsDir() && (runtime.GOOS == "windows" || st.Mode()&0o111 != 0) {
				return p, nil
			}
		}
	}
	return "", fmt.Errorf("command %q not found in PATH", command)
}

func exeExts() []string {
	if runtime.GOOS == "windows" {
		return []string{"", ".exe", ".cmd", ".bat"}
	}
	return []string{""}
}

func setEnv(env []string, k, v string) []string {
	out := env[:0]
	for _, kv := range env {
		if name, _, _ := strings.Cut(kv, "="); name != k {
			out = append(out, kv)
		}
	}
	return append(out, k+"="+v)
}

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		f.Close()
	}
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu   sync.Mutex
	max  int
	buf  []byte
	lost bool
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
		t.lost = true
	}
	return len(p), nil
}

// lines returns the last n lines held, trimmed.
func (t *tailBuffer) lines(n int) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := strings.TrimSpace(strings.ToValidUTF8(string(t.buf), "\uFFFD"))
	if s == "" {
		return ""
	}
	ls := strings.Split(s, "\n")
	if len(ls) > n || t.lost {
		if len(ls) > n {
			ls = ls[len(ls)-n:]
		}
		return "…\n" + strings.Join(ls, "\n")
	}
	return s
}
