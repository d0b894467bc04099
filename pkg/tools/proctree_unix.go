//go:build unix

package tools

import (
	"os/exec"
	"syscall"
)

// procTree is a command and every process it starts: on Unix, the
// process group the command leads.
type procTree struct {
	cmd     *exec.Cmd
	release chan<- struct{} // lets the thread that started cmd go (startTied)
}

// newProcTree prepares cmd to start as the leader of a new process group.
func newProcTree(cmd *exec.Cmd) *procTree {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return &procTree{cmd: cmd}
}

// start starts the command tied to gopi's life (startTied).
func (t *procTree) start() error {
	var err error
	t.release, err = startTied(t.cmd)
	return err
}

// kill sends SIGKILL to the whole group.
func (t *procTree) kill() { _ = syscall.Kill(-t.cmd.Process.Pid, syscall.SIGKILL) }

// keepIn hands the group to g when members outlive the shell.
func (t *procTree) keepIn(g *Groups) { g.keep(t.cmd.Process.Pid) }

func (t *procTree) close() {
	if t.release != nil {
		close(t.release)
		t.release = nil
	}
}
