package interrupt

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// ExitCode is the exit code of an interrupted command.
const ExitCode = 130

// ForceWait bounds what a second signal waits for before exiting: the
// forced exit's last words go to a stdout nobody may be reading.
const ForceWait = 250 * time.Millisecond

// FlushWait bounds what a forced exit waits for Config.Flush: the bound
// of a run's export at its normal end (telemetry's one flush), so a
// collector that does not answer delays the exit by a second at most.
const FlushWait = time.Second

// abortSignals end a command the way Ctrl-C does: a closed terminal
// (SIGHUP) and a CI runner cancelling a job (SIGTERM, SIGHUP) leave a
// consistent session and exit 130, as SIGINT does.
var abortSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// Config is what a trap takes from the process.
type Config struct {
	// Signals traps the process's signals. Without it (a test that runs
	// gopi in its own process) nothing is trapped; a run's stdout still
	// ends the run when its reader goes away.
	Signals bool
	// Stdout and Stderr are the command's streams: the process's own, or
	// a test's buffers.
	Stdout, Stderr io.Writer
	// Exit ends the process after a second signal; nil: os.Exit.
	Exit func(code int)
	// Kill stops at once what must not outlive a forced exit (bash's
	// process groups, MCP servers); nil: nothing. It is called on the
	// way out, from the signal's goroutine.
	Kill func()
	// Flush sends what the command recorded and has not sent (the open
	// Assemblies' traces: Kills.AbandonAll), after Kill, given the exit
	// code; the forced exit waits for it at most FlushWait. nil: nothing.
	Flush func(exitCode int)
}

// Trap makes the first abort signal cancel ctx and a second one exit at
// once (chat, rpc, acp and mcp list: commands whose stdout is a terminal
// or a protocol of its own). The signals are trapped when it returns;
// stop ends the trap and cancels ctx.
func Trap(parent context.Context, c Config) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancel(parent)
	reg := register(c.Signals)
	reg.wait()
	unwatch := reg.watch(c, cancel, nil)
	return ctx, func() {
		unwatch()
		cancel()
	}
}

// registration is the signals of one trap: registered in the background
// (each signal.Notify waits for the runtime's signal-mask thread, about a
// millisecond of start-up in all); wait returns once they are.
type registration struct {
	on         bool
	abort      chan os.Signal
	pipe       chan os.Signal
	registered chan struct{}
}

// register starts registering the abort signals and SIGPIPE. SIGPIPE is
// caught as well: Go kills a process whose write to a broken stdout
// raises it unless it is notified, and gopi wants the EPIPE instead, to
// end the run the orderly way (Stdout). The signal itself says nothing
// about which pipe broke (a hook that ignores its stdin raises it too),
// so it is only swallowed.
func register(on bool) *registration {
	r := &registration{on: on, registered: make(chan struct{})}
	if !on {
		close(r.registered)
		return r
	}
	r.pipe, r.abort = make(chan os.Signal, 1), make(chan os.Signal, 2)
	go func() {
		defer close(r.registered)
		signal.Notify(r.pipe, syscall.SIGPIPE)
		signal.Notify(r.abort, abortSignals...)
	}()
	return r
}

func (r *registration) wait() { <-r.registered }

// watch makes the first abort signal call abort and a second one
// forceExit with force (nil: no last words). On Windows, Ctrl-C and
// Ctrl-Break come from the console (watchConsole). stop waits for the
// registration and undoes it.
func (r *registration) watch(c Config, abort, force func()) (stop func()) {
	if !r.on {
		return func() {}
	}
	stopConsole := watchConsole(r.abort)
	done := make(chan struct{})
	go func() {
		select {
		case <-r.abort:
			abort()
		case <-done:
			return
		}
		select {
		case <-r.abort:
			forceExit(c, force)
		case <-done:
		}
	}()
	return func() {
		r.wait()
		stopConsole()
		signal.Stop(r.abort)
		signal.Stop(r.pipe)
		close(done)
	}
}

// forceExit ends the process at once after a second signal, giving force
// a bounded moment (ForceWait) to write its last words, and Flush one
// (FlushWait) to send what was recorded.
func forceExit(c Config, force func()) {
	fmt.Fprintln(c.Stderr, "gopi: interrupted again: exiting at once")
	if force != nil {
		within(ForceWait, force)
	}
	if c.Kill != nil {
		c.Kill() // SIGKILL now; nothing waits on the way out
	}
	if c.Flush != nil {
		within(FlushWait, func() { c.Flush(ExitCode) })
	}
	exit := c.Exit
	if exit == nil {
		exit = os.Exit
	}
	exit(ExitCode)
}

// within runs f and waits for it at most d.
func within(d time.Duration, f func()) {
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
}
