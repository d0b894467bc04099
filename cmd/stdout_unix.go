//go:build unix

package cmd

import (
	"os"
	"sync"
	"syscall"
	"time"
)

var (
	stdoutOnce sync.Once
	// stdoutPoll is fd 1 opened again in non-blocking mode, so that the
	// runtime's poller waits for the reader and a write deadline applies.
	// It lives as long as the process: its finalizer would close fd 1.
	stdoutPoll *os.File
)

// pollableStdout is f (the process's stdout) in non-blocking mode when it
// is a pipe or a socket, and what puts it back in blocking mode (the
// mode is the pipe's, shared with whoever else writes to it).
func pollableStdout(f *os.File) (*os.File, func()) {
	if f.SetWriteDeadline(time.Time{}) == nil {
		return f, func() {} // inherited in non-blocking mode: polled already
	}
	var st syscall.Stat_t
	fd := syscall.Stdout // f's; f.Fd() would put it in blocking mode
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, nil
	}
	if kind := st.Mode & syscall.S_IFMT; kind != syscall.S_IFIFO && kind != syscall.S_IFSOCK {
		return nil, nil
	}
	stdoutOnce.Do(func() {
		if syscall.SetNonblock(fd, true) != nil {
			return
		}
		stdoutPoll = os.NewFile(uintptr(fd), f.Name())
	})
	if stdoutPoll == nil {
		return nil, nil
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		return nil, nil
	}
	return stdoutPoll, func() { _ = syscall.SetNonblock(fd, false) }
}
