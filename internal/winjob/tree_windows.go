package winjob

import (
	"fmt"
	"os/exec"
	"sync"
	"syscall"

	"golang.org/x/sys/windows"
)

// Tree is a command and every process it starts: a job object the
// command is put in before it runs (it starts suspended, in a Ctrl-C
// group of its own), so that its children, which inherit the job, end
// with it. Where no job can be had (an old Windows that refuses nested
// jobs), the command runs untracked and Kill ends it alone.
type Tree struct {
	Cmd *exec.Cmd
	mu  sync.Mutex
	job windows.Handle // 0: not tracked (or let go)
}

// NewTree prepares cmd to start as a Tree.
func NewTree(cmd *exec.Cmd) *Tree {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: Flags}
	return &Tree{Cmd: cmd}
}

// Start starts the command suspended, puts it in a new job and lets it
// run. A command that cannot be resumed is ended and waited for.
func (t *Tree) Start() error {
	job, jobErr := Create()
	if err := t.Cmd.Start(); err != nil {
		if jobErr == nil {
			Close(job)
		}
		return err
	}
	pid := t.Cmd.Process.Pid
	if jobErr == nil {
		if err := Assign(job, pid); err != nil {
			Close(job)
		} else {
			t.mu.Lock()
			t.job = job
			t.mu.Unlock()
		}
	}
	if err := Resume(pid); err != nil {
		_ = t.Kill()
		_ = t.Cmd.Wait()
		t.Close()
		return fmt.Errorf("resume %s: %w", t.Cmd.Path, err)
	}
	return nil
}

// Kill ends every process of the job at once (or the command alone,
// untracked). It may be called after the command ended, for what it left
// running.
func (t *Tree) Kill() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.job != 0 && Terminate(t.job) == nil {
		return nil
	}
	return t.Cmd.Process.Kill()
}

// Close lets go of the job: processes still in it die.
func (t *Tree) Close() { t.let(Close) }

// Detach lets go of the job and leaves what is still in it running.
func (t *Tree) Detach() { t.let(Detach) }

func (t *Tree) let(f func(windows.Handle)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.job != 0 {
		f(t.job)
		t.job = 0
	}
}
