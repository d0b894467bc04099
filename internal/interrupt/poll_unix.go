//go:build unix

package interrupt

import (
	"os"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

var (
	pollOnce sync.Once
	// stdoutPoll is fd 1 opened again in non-blocking mode, so that the
	// runtime's poller waits for the reader and a write deadline applies;
	// stderrPoll is fd 2 likewise when it shares fd 1's pipe (2>&1), which
	// the non-blocking mode reaches too. They live as long as the process:
	// their finalizers would close fd 1 and 2.
	stdoutPoll, stderrPoll *os.File
)

// pollableStdout is f (the process's stdout) in non-blocking mode when it
// is a pipe or a socket; stderr, when not nil, is what to write stderr
// through (it shares stdout's pipe: a plain write would fail rather than
// wait); restore puts the pipe back in blocking mode (the mode is the
// pipe's, shared with whoever else writes to it).
func pollableStdout(f *os.File) (out, stderr *os.File, restore func()) {
	if f.SetWriteDeadline(time.Time{}) == nil {
		return f, nil, func() {} // inherited in non-blocking mode: polled already
	}
	var st syscall.Stat_t
	fd := syscall.Stdout // f's; f.Fd() would put it in blocking mode
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, nil, nil
	}
	if kind := st.Mode & syscall.S_IFMT; kind != syscall.S_IFIFO && kind != syscall.S_IFSOCK {
		return nil, nil, nil
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		return nil, nil, nil
	}
	pollOnce.Do(func() {
		stdoutPoll = os.NewFile(uintptr(fd), f.Name())
		if fl, err := unix.FcntlInt(uintptr(syscall.Stderr), unix.F_GETFL, 0); err == nil && fl&unix.O_NONBLOCK != 0 && os.Stderr.SetWriteDeadline(time.Time{}) != nil {
			stderrPoll = os.NewFile(uintptr(syscall.Stderr), os.Stderr.Name())
		}
	})
	restore = func() { _ = syscall.SetNonblock(fd, false) }
	if stdoutPoll.SetWriteDeadline(time.Time{}) != nil {
		restore()
		return nil, nil, nil
	}
	return stdoutPoll, stderrPoll, restore
}
