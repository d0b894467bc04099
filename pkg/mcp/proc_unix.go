//go:build unix

package mcp

import (
	"os/exec"
	"syscall"
)

// procGroup is a server's process and what it starts: a process group.
type procGroup struct{ cmd *exec.Cmd }

// ownGroup prepares the server to start in a process group of its own,
// so stopping it reaches what it started too (npx, uvx and shell
// wrappers).
func ownGroup(c *exec.Cmd) *procGroup {
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return &procGroup{cmd: c}
}

// start starts the server through f (tied to gopi's life on Linux).
func (g *procGroup) start(f *forker) error { return f.start(g.cmd) }

// terminate asks the server's process group to end (SIGTERM).
func (g *procGroup) terminate() { _ = syscall.Kill(-g.cmd.Process.Pid, syscall.SIGTERM) }

// kill ends the server's process group at once (SIGKILL). It is sent
// after the server ended too, for what it left running.
func (g *procGroup) kill() { _ = syscall.Kill(-g.cmd.Process.Pid, syscall.SIGKILL) }

// release has nothing to let go of on Unix.
func (g *procGroup) release() {}
