//go:build unix && !linux

package tools

import "os/exec"

// startTied starts cmd. Only Linux has a parent-death signal: elsewhere a
// command outlives a gopi that is killed outright.
func startTied(cmd *exec.Cmd) (release chan<- struct{}, err error) { return nil, cmd.Start() }
