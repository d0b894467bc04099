//go:build !linux

package mcp

import "os/exec"

// forker starts stdio servers; only Linux ties their life to gopi's
// (forker_linux.go). Elsewhere a server outlives a gopi killed outright
// (SIGKILL), as any child does.
type forker struct{}

func newForker() *forker { return &forker{} }

func (*forker) start(c *exec.Cmd) error { return c.Start() }

func (*forker) close() {}
