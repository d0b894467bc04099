package extension

import (
	"fmt"
	"os/exec"
	"sync"
	"syscall"

	"golang.org/x/sys/windows"

	"gopi/internal/winjob"
	"gopi/pkg/tools"
)

// hookTree is a hook's command and every process it starts: a job object
// the command is put in before it runs (it starts suspended, in a Ctrl-C
// group of its own, so a Ctrl-C reaches gopi, not the hook), so that its
// children, which inherit the job, end with it on a cancel, as the bash
// tool's and MCP servers' trees do.
type hookTree struct {
	cmd *exec.Cmd
	mu  sync.Mutex
	job windows.Handle // 0: not tracked; a cancel ends the command alone
}

// newHookTree prepares cmd to start suspended and has a cancel end the
// whole tree.
func newHookTree(cmd *exec.Cmd) *hookTree {
	t := &hookTree{cmd: cmd}
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: winjob.Flags}
	cmd.Cancel = t.kill
	return t
}

// run starts the command suspended, puts it in a new job, lets it run
// and waits for it. Where no job can be had (an old Windows that refuses
// nested jobs), the command runs untracked and a cancel ends it alone.
// What the hook left running when it exited runs on, as on Unix: the job
// is let go without ending it.
func (t *hookTree) run() error {
	job, jobErr := winjob.Create()
	if err := t.cmd.Start(); err != nil {
		if jobErr == nil {
			winjob.Close(job)
		}
		return err
	}
	pid := t.cmd.Process.Pid
	if jobErr == nil {
		if err := winjob.Assign(job, pid); err != nil {
			winjob.Close(job)
		} else {
			t.mu.Lock()
			t.job = job
			t.mu.Unlock()
		}
	}
	if err := winjob.Resume(pid); err != nil {
		_ = t.kill()
		_ = t.cmd.Wait()
		t.release(winjob.Close)
		return fmt.Errorf("resume %s: %w", t.cmd.Path, err)
	}
	err := t.cmd.Wait()
	t.release(winjob.Detach)
	return err
}

// kill ends every process of the job at once (or the command alone,
// untracked).
func (t *hookTree) kill() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.job != 0 && winjob.Terminate(t.job) == nil {
		return nil
	}
	return t.cmd.Process.Kill()
}

// release lets go of the job with let (Close ends what is left in it,
// Detach leaves it running).
func (t *hookTree) release(let func(windows.Handle)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.job != 0 {
		let(t.job)
		t.job = 0
	}
}

// defaultShell is the bash tool's shell: bash on PATH (Git for Windows,
// WSL), else pwsh, else powershell.exe; there is no /bin/sh.
func defaultShell() string { return tools.DefaultShell() }
