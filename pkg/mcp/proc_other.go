//go:build !unix

package mcp

import "os/exec"

// ownGroup does nothing where there are no process groups.
func ownGroup(*exec.Cmd) {}

// terminate ends the server's process where it cannot be asked to.
func terminate(c *exec.Cmd) { _ = c.Process.Kill() }

// kill ends the server's process.
func kill(c *exec.Cmd) { _ = c.Process.Kill() }
