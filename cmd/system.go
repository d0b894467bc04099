// Package cmd is gopi's command line: cobra commands, their flags bound
// into options structs, and short run functions over the packages that
// do the work (pkg/invocation opens every front door's host and runs
// gopi run; pkg/chat, pkg/rpc and pkg/acp serve the others). Nothing
// below this package reads the environment, the process's streams or
// its arguments.
package cmd

import (
	"os"
	"time"

	"github.com/mattn/go-isatty"

	"gopi/pkg/invocation"
)

// System is what gopi takes from its process. Main receives it so that
// tests run the whole command line in-process.
type System = invocation.Process

// OSSystem is the real process: the one place that reads it.
func OSSystem() System {
	tty := func(f *os.File) bool { return isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()) }
	return System{
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		StdinTTY: tty(os.Stdin), StdoutTTY: tty(os.Stdout), StderrTTY: tty(os.Stderr),
		Environ: osEnviron(), Getwd: os.Getwd, Now: time.Now, Signals: true, Exit: os.Exit,
	}
}
