//go:build unix

package extension

import (
	"os/exec"
	"syscall"
)

// killTreeOnCancel starts cmd in its own process group and has a cancel
// kill the whole group.
func killTreeOnCancel(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}

// defaultShell runs hooks on Unix.
func defaultShell() string { return "/bin/sh" }
