package invocation

import (
	"context"
	"io"
	"time"

	"gopi/internal/buildinfo"
	"gopi/internal/interrupt"
	"gopi/pkg/assemble"
	"gopi/pkg/settings"
)

// Process is what gopi takes from its process: its streams, environment,
// working folder and clock, and what it keeps for the whole invocation.
// cmd.Main receives it (cmd.OSSystem is the real one), so tests run the
// whole command line in-process; nothing here reads the process itself.
type Process struct {
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

	// Args are the arguments the command line was given (a flag error's
	// output mode, shell completion).
	Args []string
	// Hosts are the Assemblies open, whose processes a forced exit kills
	// (nil keeps none).
	Hosts *interrupt.Kills
	// Said are the warnings said in this invocation, each once however
	// often its source is read (a settings file's unknown keys, an agent
	// file's unknown tools, read again for each session); set by the
	// first LoadSettings.
	Said *settings.Said
}

// Getenv looks a variable up in the process's environment, the last
// setting of it winning.
func (p *Process) Getenv(key string) string {
	for i := len(p.Environ) - 1; i >= 0; i-- {
		kv := p.Environ[i]
		if len(kv) > len(key) && kv[len(key)] == '=' && kv[:len(key)] == key {
			return kv[len(key)+1:]
		}
	}
	return ""
}

// Env is what assemble takes from the process; ctx's end (a signal)
// stops MCP servers starting.
func (p *Process) Env(ctx context.Context) assemble.Env {
	return assemble.Env{Environ: p.Environ, Now: p.Now, Stderr: p.Stderr, Context: ctx, Version: buildinfo.Read().Version, SandboxProbe: p.SandboxProbe,
		Said: p.Said}
}

// Interrupts is what the signal traps take from the process: a forced
// exit stops bash's process groups and the MCP servers of the open
// Assemblies.
func (p *Process) Interrupts() interrupt.Config {
	return interrupt.Config{Signals: p.Signals, Stdout: p.Stdout, Stderr: p.Stderr, Exit: p.Exit, Kill: p.Hosts.KillAll,
		Flush: p.Hosts.AbandonAll}
}

// Trap makes the first abort signal cancel ctx and a second one exit at
// once (chat, rpc, acp, mcp list); stop ends the trap.
func (p *Process) Trap(ctx context.Context) (context.Context, func()) {
	return interrupt.Trap(ctx, p.Interrupts())
}

// Cwd is the absolute working folder: --cwd's (flag) when given, else
// the process's.
func (p *Process) Cwd(flag string) (string, error) { return settings.Cwd(flag, p.Getwd) }

// LoadSettings reads the settings files (none when bare), the GOPI_*
// variables and the flags given (pkg/settings).
func (p *Process) LoadSettings(flags settings.Flags, cwd string, bare bool) (*settings.Settings, error) {
	home, err := settings.GopiHome(p.Getenv)
	if err != nil {
		return nil, err
	}
	if p.Said == nil { // the first load, before anything runs beside it
		p.Said = &settings.Said{}
	}
	return settings.Load(settings.Options{Home: home, Cwd: cwd, Bare: bare, Flags: flags,
		Getenv: p.Getenv, Stderr: p.Stderr, Said: p.Said})
}
