// Package cmd is gopi's command line: cobra commands, flags and settings
// (one settings store per invocation, layers.go) resolved into plain options, one
// Runtime per run, and the exit code decided in one place. Nothing below
// this package reads the environment, the process's streams or its args.
package cmd

import (
	"context"
	"io"
	"os"
	"time"

	"github.com/mattn/go-isatty"

	"gopi/internal/buildinfo"
	"gopi/internal/interrupt"
	"gopi/pkg/assemble"
	"gopi/pkg/settings"
)

// System is what gopi takes from its process. Main receives it so that
// tests run the whole command line in-process.
type System struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// StdinTTY, StdoutTTY and StderrTTY say which streams are terminals.
	StdinTTY, StdoutTTY, StderrTTY bool
	Environ                        []string
	Getwd                          func() (string, error)
	Now                            func() time.Time
	// Signals makes SIGINT, SIGTERM and SIGHUP abort the run, and a write
	// to a stdout whose reader is gone fail (EPIPE) instead of killing
	// the process (SIGPIPE).
	Signals bool
	// Exit ends the process at once (a second SIGINT); nil: os.Exit.
	Exit func(code int)
	// SandboxProbe reports the kernel's Landlock ABI; nil asks the kernel.
	SandboxProbe func() (abi int, err error)

	args []string // the arguments Main was given, for a flag error's mode
	// hosts are the Assemblies open, whose processes a forced exit kills
	// (nil: a System Main did not start keeps none).
	hosts *interrupt.Kills

	// settingsSaid are the settings files whose unknown keys were named
	// (once per file and invocation, however often they are read); set by
	// loadSettings.
	settingsSaid *settings.Said
}

// OSSystem is the real process.
func OSSystem() System {
	tty := func(f *os.File) bool { return isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()) }
	return System{
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		StdinTTY: tty(os.Stdin), StdoutTTY: tty(os.Stdout), StderrTTY: tty(os.Stderr),
		Environ: osEnviron(), Getwd: os.Getwd, Now: time.Now, Signals: true, Exit: os.Exit,
	}
}

// getenv looks a variable up in the injected environment.
func (s *System) getenv(key string) string {
	for i := len(s.Environ) - 1; i >= 0; i-- {
		kv := s.Environ[i]
		if len(kv) > len(key) && kv[len(key)] == '=' && kv[:len(key)] == key {
			return kv[len(key)+1:]
		}
	}
	return ""
}

// env is what assemble takes from the process; ctx's end (a signal)
// stops MCP servers starting.
func (s *System) env(ctx context.Context) assemble.Env {
	return assemble.Env{Environ: s.Environ, Now: s.Now, Stderr: s.Stderr, Context: ctx, Version: buildinfo.Read().Version, SandboxProbe: s.SandboxProbe}
}

// interrupts is what the signal traps take from the process: a forced
// exit stops bash's process groups and the MCP servers of the open
// Assemblies, then sends their traces.
func (s *System) interrupts() interrupt.Config {
	return interrupt.Config{Signals: s.Signals, Stdout: s.Stdout, Stderr: s.Stderr, Exit: s.Exit, Kill: s.hosts.KillAll,
		Flush: s.hosts.AbandonAll}
}

// trapSignals makes the first abort signal cancel ctx and a second one
// exit at once (chat, rpc, acp, mcp list); stop ends the trap.
func trapSignals(ctx context.Context, sys *System) (context.Context, func()) {
	return interrupt.Trap(ctx, sys.interrupts())
}
