//go:build !linux

package sandbox

import (
	"fmt"
	"io"
	"os/exec"
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

func namespaces(cmd *exec.Cmd) error { return ErrUnsupported }
