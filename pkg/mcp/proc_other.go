//go:build !unix && !windows

package mcp

import "os/exec"

// procGroup is a server's process alone, where there are no process
// groups.
type procGroup struct{ cmd *exec.Cmd }

func ownGroup(c *exec.Cmd) *procGroup { return &procGroup{cmd: c} }

func (g *procGroup) start(*forker) error { return g.cmd.Start() }

// terminate ends the server's process where it cannot be asked to.
func (g *procGroup) terminate() { _ = g.cmd.Process.Kill() }

// kill ends the server's process.
func (g *procGroup) kill() { _ = g.cmd.Process.Kill() }

func (g *procGroup) release() {}
