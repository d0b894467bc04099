//go:build unix

package tools

import (
	"os/exec"
	"syscall"
)

// procTree is a command and every process it starts: on Unix, the
// process group the command leads.
type procTree struct {
	cmd *exec.Cmd
}

// newProcTree prepares cmd to start as the leader of a new process group.
func newProcTree(cmd *exec.Cmd) *procTree {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return &procTree{cmd: cmd}
}

func (t *procTree) start() error { return t.cmd.Start() }

// kill sends SIGKILL to the whole group.
func (t *procTree) kill() { _ = syscall.Kill(-t.cmd.Process.Pid, syscall.SIGKILL) }

// keepIn hands the group to g when members outlive the shell.
func (t *procTree) keepIn(g *Groups) { g.keep(t.cmd.Process.Pid) }

func (t *procTree) close() {}
