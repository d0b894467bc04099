//go:build !linux

package sandbox

import (
	"fmt"
	"io"
	"runtime"
)

// KernelProbe says no sandbox exists here: gopi's sandbox is Landlock,
// which only Linux has (no pretend sandbox elsewhere).
func KernelProbe() (int, error) {
	return 0, fmt.Errorf("%w (%s): gopi's sandbox needs Linux with Landlock", ErrUnsupported, runtime.GOOS)
}

// RunHelper refuses: there is no sandbox to apply on this platform.
func RunHelper(args, environ []string, stderr io.Writer) int {
	fmt.Fprintf(stderr, "gopi: the sandbox could not be applied, the command did not run: %v\n", ErrUnsupported)
	return 126
}

// helper does not exist here: no helper ever starts.
type helper struct{}

func startHelper(exe string, p Policy) (*helper, error) { return nil, ErrUnsupported }

func (h *helper) ended() bool                       { return true }
func (h *helper) start(c Command) (*Process, error) { return nil, ErrUnsupported }
func (h *helper) stop()                             {}
func (p *Process) Wait() (Exit, error)              { return Exit{}, ErrUnsupported }
