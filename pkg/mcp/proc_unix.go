//go:build unix

package mcp

import (
	"os/exec"
	"syscall"
)

// ownGroup starts the server in a process group of its own, so stopping
// it reaches what it started too (npx, uvx and shell wrappers).
func ownGroup(c *exec.Cmd) { c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// terminate asks the server's process group to end (SIGTERM).
func terminate(c *exec.Cmd) { _ = syscall.Kill(-c.Process.Pid, syscall.SIGTERM) }

// kill ends the server's process group at once (SIGKILL). It is sent
// after the server ended too, for what it left running.
func kill(c *exec.Cmd) { _ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL) }
