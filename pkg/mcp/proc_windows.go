package mcp

import (
	"os/exec"

	"golang.org/x/sys/windows"

	"gopi/internal/winjob"
)

// procGroup is a server's process and every process it starts, in a job
// object (winjob.Tree), so that its children end with it.
type procGroup struct{ *winjob.Tree }

// ownGroup prepares the server to start suspended in a Ctrl-C group of
// its own.
func ownGroup(c *exec.Cmd) *procGroup { return &procGroup{winjob.NewTree(c)} }

// start starts the server in its job and lets it run; the job, not a
// forker, ends it with gopi.
func (g *procGroup) start(*forker) error { return g.Start() }

// terminate asks the server's process group to end with a Ctrl-Break,
// Windows' nearest to SIGTERM; it reaches a server that shares gopi's
// console, and the kill a bounded wait later ends the others.
func (g *procGroup) terminate() {
	_ = windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, uint32(g.Cmd.Process.Pid))
}

// kill ends every process of the job at once (or the server alone,
// untracked). It is called after the server ended too, for what it left
// running.
func (g *procGroup) kill() { _ = g.Kill() }

// release closes the job; processes still in it die.
func (g *procGroup) release() { g.Close() }
