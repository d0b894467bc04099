package mcp

import (
	"fmt"
	"os/exec"
	"sync"
	"syscall"

	"golang.org/x/sys/windows"

	"gopi/internal/winjob"
)

// procGroup is a server's process and every process it starts: a job
// object the server is put in before it runs (it starts suspended), so
// that its children, which inherit the job, end with it.
type procGroup struct {
	cmd *exec.Cmd
	mu  sync.Mutex
	job windows.Handle // 0: not tracked (or released); kill ends the server alone
}

// ownGroup prepares the server to start suspended in a Ctrl-C group of
// its own.
func ownGroup(c *exec.Cmd) *procGroup {
	c.SysProcAttr = &syscall.SysProcAttr{CreationFlags: winjob.Flags}
	return &procGroup{cmd: c}
}

// start starts the server suspended, puts it in a new job and lets it
// run. Where no job can be had, the server runs untracked and kill ends
// it alone, as before jobs.
func (g *procGroup) start() error {
	job, jobErr := winjob.Create()
	if err := g.cmd.Start(); err != nil {
		if jobErr == nil {
			winjob.Close(job)
		}
		return err
	}
	pid := g.cmd.Process.Pid
	if jobErr == nil {
		if err := winjob.Assign(job, pid); err != nil {
			winjob.Close(job)
		} else {
			g.job = job
		}
	}
	if err := winjob.Resume(pid); err != nil {
		g.kill()
		_ = g.cmd.Wait()
		g.release()
		return fmt.Errorf("resume %s: %w", g.cmd.Path, err)
	}
	return nil
}

// terminate asks the server's process group to end with a Ctrl-Break,
// Windows' nearest to SIGTERM; it reaches a server that shares gopi's
// console, and the kill a bounded wait later ends the others.
func (g *procGroup) terminate() {
	_ = windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, uint32(g.cmd.Process.Pid))
}

// kill ends every process of the job at once (or the server alone,
// untracked). It is called after the server ended too, for what it left
// running.
func (g *procGroup) kill() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.job != 0 && winjob.Terminate(g.job) == nil {
		return
	}
	_ = g.cmd.Process.Kill()
}

// release closes the job; processes still in it die.
func (g *procGroup) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.job != 0 {
		winjob.Close(g.job)
		g.job = 0
	}
}
