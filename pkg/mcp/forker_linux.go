package mcp

import (
	"os/exec"
	"runtime"
	"syscall"
)

// forker starts a manager's stdio servers with SIGKILL as their parent's
// death signal, so that a gopi killed outright (SIGKILL, the OOM killer)
// takes its servers along instead of leaving them running. Linux sends
// that signal when the thread that forked the child ends, not the
// process: every server is forked from one goroutine locked to its OS
// thread for as long as the manager lives. When the manager closes, the
// goroutine returns still locked, which ends the thread (Go does not
// reuse it), and with it any server still left.
type forker struct {
	reqs chan forkReq
}

type forkReq struct {
	cmd  *exec.Cmd
	done chan error
}

func newForker() *forker {
	f := &forker{reqs: make(chan forkReq)}
	go func() {
		runtime.LockOSThread() // never unlocked: see forker
		for r := range f.reqs {
			r.done <- r.cmd.Start()
		}
	}()
	return f
}

// start starts c from the forker's thread, with its death signal set.
func (f *forker) start(c *exec.Cmd) error {
	if c.SysProcAttr == nil {
		c.SysProcAttr = &syscall.SysProcAttr{}
	}
	c.SysProcAttr.Pdeathsig = syscall.SIGKILL
	r := forkReq{cmd: c, done: make(chan error, 1)}
	f.reqs <- r
	return <-r.done
}

// close ends the forker's goroutine and thread; no start may follow.
func (f *forker) close() { close(f.reqs) }
