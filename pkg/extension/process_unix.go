//go:build unix

package extension

import (
	"os/exec"
	"syscall"
)

// hookTree is a hook's command and every process it starts: its own
// process group, killed whole on a cancel.
type hookTree struct{ cmd *exec.Cmd }

// newHookTree starts cmd in its own process group and has a cancel kill
// the whole group.
func newHookTree(cmd *exec.Cmd) *hookTree {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	return &hookTree{cmd: cmd}
}

// run runs the command and waits for it. What it left running when it
// exited runs on.
func (t *hookTree) run() error { return t.cmd.Run() }

// defaultShell runs hooks on Unix.
func defaultShell() string { return "/bin/sh" }
