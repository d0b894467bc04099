package sandbox

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Bounded waits of the helper's life.
const (
	// helperStartWait bounds the wait for a new helper to say it is ready.
	helperStartWait = 30 * time.Second
	// helperStopWait bounds the wait for a helper to exit once its socket
	// is closed, before it is killed.
	helperStopWait = 2 * time.Second
)

// errHelperGone is a send to a helper that has exited.
var errHelperGone = errors.New("the sandbox helper has ended")

// helper is one running sandbox helper: a process confined by one
// policy, starting the commands it is sent (serve_linux.go).
type helper struct {
	cmd *exec.Cmd
	ctl *net.UnixConn

	mu   sync.Mutex // serialises sends; guards gone
	gone bool
}

// startHelper starts exe as the helper of p and waits until it has
// applied p. The helper runs in a user and mount namespace of its own,
// where everything but the writable folders is mounted read-only
// (Policy.ReadOnlyOutside). Where the kernel refuses it the namespace and
// p needs no read-only entry (.git and the like), the helper starts
// without: Landlock, no capabilities and the seccomp filter still hold;
// with one, nothing runs and the error names the system settings that
// refuse the namespace.
func startHelper(exe string, p Policy) (*helper, error) {
	p.ReadOnlyOutside = true
	h, err := startHelperIn(exe, p, true)
	var nsErr *namespaceError
	if errors.As(err, &nsErr) {
		if len(p.ReadOnlyPaths) == 0 {
			p.ReadOnlyOutside = false
			return startHelperIn(exe, p, false)
		}
		return nil, fmt.Errorf("%w. The sandbox keeps %s read-only with mounts in a user namespace of its own, "+
			"which the system refused: allow unprivileged user namespaces "+
			"(sysctl kernel.apparmor_restrict_unprivileged_userns=0 on Ubuntu, or an AppArmor profile that allows them to gopi; "+
			"sysctl kernel.unprivileged_userns_clone=1 on Debian; user.max_user_namespaces above 0; "+
			"in a container, a seccomp profile that allows them), or run with --sandbox off",
			err, strings.Join(p.ReadOnlyPaths, ", "))
	}
	return h, err
}

// namespaceError is a helper that could not have or use its namespaces.
type namespaceError struct{ err error }

func (e *namespaceError) Error() string { return e.err.Error() }
func (e *namespaceError) Unwrap() error { return e.err }

// startHelperIn starts exe as the helper of p, in namespaces of its own
// when ns is set. The helper runs in a process group of its own (a
// terminal's Ctrl-C is gopi's to handle) with an empty environment, and
// exits by itself when its socket's other end is closed, which the kernel
// does when gopi ends in any way. No parent-death signal: Linux sends it
// when the thread that started the helper exits, not the process, and a
// Go thread may exit while gopi runs on.
func startHelperIn(exe string, p Policy, ns bool) (*helper, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("the sandbox helper's socket: %w", err)
	}
	theirs := os.NewFile(uintptr(fds[1]), "sandbox-helper")
	attr := &syscall.SysProcAttr{Setpgid: true}
	p.CommandIDs = nil
	if ns {
		p.CommandIDs = namespaces(attr)
	}
	doc, err := json.Marshal(p)
	if err != nil {
		theirs.Close()
		unix.Close(fds[0])
		return nil, err
	}
	cmd := &exec.Cmd{Path: exe, Args: []string{"gopi", HelperArg, string(doc)}, Env: []string{}, Dir: "/",
		ExtraFiles: []*os.File{theirs}, SysProcAttr: attr}
	err = cmd.Start()
	theirs.Close()
	if err != nil {
		unix.Close(fds[0])
		err = fmt.Errorf("the sandbox helper %s could not start: %w", exe, err)
		if ns && (errors.Is(err, unix.EPERM) || errors.Is(err, unix.EACCES) || errors.Is(err, unix.ENOSPC) || errors.Is(err, unix.EINVAL) || errors.Is(err, unix.EUSERS)) {
			err = &namespaceError{err}
		}
		return nil, err
	}
	ctl, err := fileConn(fds[0], "sandbox-control")
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, err
	}
	h := &helper{cmd: cmd, ctl: ctl}
	_ = ctl.SetReadDeadline(time.Now().Add(helperStartWait))
	buf := make([]byte, 4096)
	n, err := ctl.Read(buf)
	_ = ctl.SetReadDeadline(time.Time{})
	if err != nil || string(buf[:n]) != readyMsg {
		why := string(buf[:n])
		if err != nil || why == "" {
			why = fmt.Sprintf("the helper %s ended before it was ready (%v)", exe, err)
		}
		h.stop()
		err := fmt.Errorf("the sandbox could not be applied: %s", why)
		if strings.HasPrefix(why, noMountPrefix) {
			return nil, &namespaceError{err}
		}
		return nil, err
	}
	return h, nil
}

// ended reports whether the helper is known to have ended.
func (h *helper) ended() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.gone
}

// markGone records that the helper has ended: the next command starts
// another.
func (h *helper) markGone() {
	h.mu.Lock()
	h.gone = true
	h.mu.Unlock()
}

// start has the helper start c and returns it once it runs.
func (h *helper) start(c Command) (*Process, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("sandbox: a command's socket: %w", err)
	}
	h.mu.Lock()
	if h.gone {
		err = errHelperGone
	} else if _, _, err = h.ctl.WriteMsgUnix([]byte{'c'}, unix.UnixRights(fds[1]), nil); err != nil {
		h.gone = true
		err = fmt.Errorf("%w (%v)", errHelperGone, err)
	}
	h.mu.Unlock()
	unix.Close(fds[1])
	if err != nil {
		unix.Close(fds[0])
		return nil, fmt.Errorf("%w; the command did not run", err)
	}
	conn, err := fileConn(fds[0], "sandbox-command")
	if err != nil {
		return nil, err
	}
	if err := sendRequest(conn, c); err != nil {
		conn.Close()
		return nil, fmt.Errorf("sending the command to the sandbox helper: %w; the command did not run", err)
	}
	dec := json.NewDecoder(conn)
	var r reply
	if err := dec.Decode(&r); err != nil {
		conn.Close()
		h.markGone()
		return nil, fmt.Errorf("%w (%v); the command did not run", errHelperGone, err)
	}
	if r.Error != "" || r.Pid <= 0 {
		conn.Close()
		return nil, fmt.Errorf("fork/exec %s: %s", c.Path, r.Error)
	}
	return &Process{Pid: r.Pid, h: h, conn: conn, dec: dec}, nil
}

// sendRequest writes c's request with its files attached.
func sendRequest(conn *net.UnixConn, c Command) error {
	body, err := json.Marshal(request{Path: c.Path, Args: c.Args, Env: c.Env, Dir: c.Dir, Stdin: c.Stdin != nil})
	if err != nil {
		return err
	}
	frame := make([]byte, 4+len(body))
	binary.BigEndian.PutUint32(frame, uint32(len(body)))
	copy(frame[4:], body)
	files := []*os.File{c.Stdout, c.Stderr}
	if c.Stdin != nil {
		files = append(files, c.Stdin)
	}
	fds := make([]int, len(files))
	for i, f := range files {
		if f == nil {
			return errors.New("a command needs its stdout and stderr")
		}
		fds[i] = int(f.Fd())
	}
	n, _, err := conn.WriteMsgUnix(frame, unix.UnixRights(fds...), nil)
	if err == nil && n < len(frame) {
		_, err = conn.Write(frame[n:])
	}
	return err
}

// stop closes the helper's socket, which ends it, and waits for it to
// exit (killing it after helperStopWait).
func (h *helper) stop() {
	h.markGone()
	h.ctl.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = h.cmd.Wait()
	}()
	t := time.NewTimer(helperStopWait)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		_ = h.cmd.Process.Kill()
		<-done
	}
}

// Wait waits for the command to end. Its error is ErrHelperEnded (or
// another the helper reported) when the command's end is not known.
func (p *Process) Wait() (Exit, error) {
	defer p.conn.Close()
	var r reply
	if err := p.dec.Decode(&r); err != nil || r.Status == nil {
		if r.Error != "" {
			return Exit{}, fmt.Errorf("the sandbox helper could not wait for the command: %s", r.Error)
		}
		p.h.markGone()
		return Exit{}, ErrHelperEnded
	}
	ws := syscall.WaitStatus(*r.Status)
	if ws.Signaled() {
		return Exit{Code: -1, Signal: ws.Signal()}, nil
	}
	return Exit{Code: ws.ExitStatus()}, nil
}
