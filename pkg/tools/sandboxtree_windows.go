package tools

import (
	"os/exec"

	"gopi/pkg/sandbox"
)

// sandboxTree stands for a sandboxed command where there is no sandbox:
// it never starts (the guard's mode is always off here).
type sandboxTree struct{}

func newSandboxTree(*sandbox.Guard, *exec.Cmd, []byte) *sandboxTree { return &sandboxTree{} }

func (*sandboxTree) start() error     { return sandbox.ErrUnsupported }
func (*sandboxTree) wait() ending     { return ending{startErr: sandbox.ErrUnsupported} }
func (*sandboxTree) kill()            {}
func (*sandboxTree) keepIn(g *Groups) {}
func (*sandboxTree) close()           {}
