package tools

import (
	"encoding/base64"
	"fmt"
	"os/exec"
	"syscall"
	"unicode/utf16"

	"golang.org/x/sys/windows"

	"gopi/internal/winjob"
)

// procTree is a command and every process it starts: on Windows, a job
// object the command is put in before it runs (it starts suspended), so
// that its children, which inherit the job, end with it.
type procTree struct {
	cmd *exec.Cmd
	api jobAPI
	job windows.Handle // 0: not tracked; kill ends the command alone
}

// jobAPI is what a process tree needs of Windows: tests put a fake in
// its place where Wine does not behave as Windows does.
type jobAPI interface {
	// create makes a job whose processes die when its last handle closes.
	create() (windows.Handle, error)
	// assign puts the (suspended) process pid in the job.
	assign(job windows.Handle, pid int) error
	// resume starts the threads of the suspended process pid.
	resume(pid int) error
	// terminate ends every process of the job.
	terminate(job windows.Handle) error
	// active counts the job's processes still running.
	active(job windows.Handle) (int, error)
	close(job windows.Handle)
}

// jobs is the jobAPI of new process trees.
var jobs jobAPI = winJobs{}

// newProcTree prepares cmd to start suspended in a process group of its
// own (a Ctrl-C in gopi's console reaches gopi, which ends the tree). A
// PowerShell gets the command as -EncodedCommand, which no quoting rule
// of the command line can mangle, with its output in UTF-8.
func newProcTree(cmd *exec.Cmd) *procTree {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: winjob.Flags}
	if isPowerShell(cmd.Path) && len(cmd.Args) == 3 && cmd.Args[1] == "-c" {
		cmd.Args = powerShellArgs(cmd.Args[0], cmd.Args[2])
	}
	return &procTree{cmd: cmd, api: jobs}
}

// powerShellArgs runs command in PowerShell without profile or prompts.
func powerShellArgs(shell, command string) []string {
	script := "$ProgressPreference = 'SilentlyContinue'\n" +
		"[Console]::OutputEncoding = [System.Text.Encoding]::UTF8\n" + command
	u := utf16.Encode([]rune(script))
	b := make([]byte, 2*len(u))
	for i, c := range u {
		b[2*i], b[2*i+1] = byte(c), byte(c>>8)
	}
	return []string{shell, "-NoProfile", "-NonInteractive", "-ExecutionPolicy", "Bypass",
		"-EncodedCommand", base64.StdEncoding.EncodeToString(b)}
}

// start starts the command suspended, puts it in a new job and lets it
// run. Where no job can be had (an old Windows that refuses nested jobs),
// the command runs untracked and kill ends it alone.
func (t *procTree) start() error {
	job, jobErr := t.api.create()
	if err := t.cmd.Start(); err != nil {
		if jobErr == nil {
			t.api.close(job)
		}
		return err
	}
	pid := t.cmd.Process.Pid
	if jobErr == nil {
		if err := t.api.assign(job, pid); err != nil {
			t.api.close(job)
		} else {
			t.job = job
		}
	}
	if err := t.api.resume(pid); err != nil {
		t.kill()
		_ = t.cmd.Wait()
		t.close()
		return fmt.Errorf("resume %s: %w", t.cmd.Path, err)
	}
	return nil
}

// kill ends the whole tree: the job, or the command alone.
func (t *procTree) kill() {
	if t.job != 0 {
		if t.api.terminate(t.job) == nil {
			return
		}
	}
	_ = t.cmd.Process.Kill()
}

// keepIn hands the job to g when processes outlive the shell.
func (t *procTree) keepIn(g *Groups) {
	if g == nil || t.job == 0 {
		return
	}
	if n, err := t.api.active(t.job); err == nil && n > 0 {
		g.keepJob(t.job, t.api)
		t.job = 0
	}
}

// close lets go of the job; processes still in it die.
func (t *procTree) close() {
	if t.job != 0 {
		t.api.close(t.job)
		t.job = 0
	}
}

// winJobs is the real jobAPI (internal/winjob).
type winJobs struct{}

func (winJobs) create() (windows.Handle, error)          { return winjob.Create() }
func (winJobs) assign(job windows.Handle, pid int) error { return winjob.Assign(job, pid) }
func (winJobs) resume(pid int) error                     { return winjob.Resume(pid) }
func (winJobs) terminate(job windows.Handle) error       { return winjob.Terminate(job) }
func (winJobs) active(job windows.Handle) (int, error)   { return winjob.Active(job) }
func (winJobs) close(job windows.Handle)                 { winjob.Close(job) }
