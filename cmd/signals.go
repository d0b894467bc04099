package cmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"gopi/internal/pijson"
	"gopi/pkg/ai"
	"gopi/pkg/loop"
	"gopi/pkg/mode"
	"gopi/pkg/sandbox"
)

// abortSignals end a run the way Ctrl-C does: a closed terminal (SIGHUP)
// and a CI runner cancelling a job (SIGTERM, SIGHUP) leave a consistent
// session and exit 130, as SIGINT does.
var abortSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// trapRun is what gopi run holds while it runs, in output mode m: a
// context that the first abort signal cancels, and a stdout whose reader
// going away (EPIPE) cancels it too; a second signal writes the forced
// exit's result object and exits at once.
//
// The signals are registered while the run's settings are read (each
// signal.Notify waits for the runtime's signal-mask thread: about a
// millisecond of start-up in all). Until they are, a write to stdout or
// stderr waits, and sys.trapped, called before stdin is read or anything
// is started, waits too.
//
// Once the run is cancelled, a write to a stdout that is a pipe waits at
// most stopWait for its reader (boundStdout): a reader that stopped
// reading does not keep the run from ending.
func trapRun(parent context.Context, sys *System, m mode.Mode) (context.Context, func()) {
	ctx, cancel := context.WithCancel(parent)
	out, restore := boundStdout(sys)
	unbound := func() bool { return false }
	if out != nil {
		unbound = context.AfterFunc(ctx, func() { out.bound(true) })
	}
	ready, stop := startTrap(sys, cancel, func() { sys.forced.write(sys.Now()) })
	sys.trapped = ready
	sys.Stdout, sys.Stderr = trappedWriter{sys.Stdout, ready}, trappedWriter{sys.Stderr, ready}
	sys.forced = newForcedExit(sys, m, cancel)
	return ctx, func() {
		stop()
		unbound()
		cancel()
		restore()
	}
}

// trappedWriter writes to w once the signals are trapped: no write
// reaches a broken pipe before SIGPIPE is caught.
type trappedWriter struct {
	w     io.Writer
	ready func()
}

func (t trappedWriter) Write(p []byte) (int, error) {
	t.ready()
	return t.w.Write(p)
}

// trapChat is trapRun for gopi chat, whose stdout is a terminal.
func trapChat(parent context.Context, sys *System) (context.Context, func()) {
	ctx, cancel := context.WithCancel(parent)
	stop := trapSignals(sys, cancel, nil)
	return ctx, func() {
		stop()
		cancel()
	}
}

// forceWait bounds what a second interrupt waits for before exiting: the
// result object goes to a stdout nobody may be reading.
const forceWait = 250 * time.Millisecond

// trapSignals makes the first abort signal call abort (the run ends
// aborted, the session stays consistent) and a second one run force (if
// any) and exit at once. SIGPIPE is caught as well: Go kills a process
// whose write to a broken stdout raises it unless it is notified, and
// gopi wants the EPIPE instead, to end the run the same orderly way
// (exitWriter). The signal itself says nothing about which pipe broke (a
// hook that ignores its stdin raises it too), so it is only swallowed.
// On Windows, Ctrl-C and Ctrl-Break come from the console (watchConsole).
func trapSignals(sys *System, abort, force func()) (stop func()) {
	ready, stop := startTrap(sys, abort, force)
	ready()
	return stop
}

// startTrap is trapSignals with the signals registered in the
// background: ready waits until they are; stop waits for that too.
func startTrap(sys *System, abort, force func()) (ready, stop func()) {
	if !sys.Signals {
		return func() {}, func() {}
	}
	pipe := make(chan os.Signal, 1)
	ch := make(chan os.Signal, 2)
	registered := make(chan struct{})
	go func() {
		defer close(registered)
		signal.Notify(pipe, syscall.SIGPIPE)
		signal.Notify(ch, abortSignals...)
	}()
	ready = func() { <-registered }
	stopConsole := watchConsole(ch)
	done := make(chan struct{})
	go func() {
		select {
		case <-ch:
			abort()
		case <-done:
			return
		}
		select {
		case <-ch:
			forceExit(sys, force)
		case <-done:
		}
	}()
	return ready, func() {
		ready()
		stopConsole()
		signal.Stop(ch)
		signal.Stop(pipe)
		close(done)
	}
}

// forceExit ends the process at once after a second signal, giving force
// a bounded moment to write the result object.
func forceExit(sys *System, force func()) {
	fmt.Fprintln(sys.Stderr, "gopi: interrupted again: exiting at once")
	if force != nil {
		done := make(chan struct{})
		go func() { defer close(done); force() }()
		select {
		case <-done:
		case <-time.After(forceWait):
		}
	}
	sys.hosts.kill() // SIGKILL now; nothing waits on the way out
	exit := sys.Exit
	if exit == nil {
		exit = os.Exit
	}
	exit(ExitInterrupted)
}

// forcedExit is what a second interrupt of gopi run writes before it
// exits at once: json and events promise a result object on every exit,
// so it writes one (reason aborted, with the session as far as it got)
// unless the run's own result already went out, and lets nothing follow.
type forcedExit struct {
	w     *exitWriter
	start time.Time
	mode  mode.Mode
	mu    sync.Mutex
	info  func() *mode.SessionInfo // the session, once opened
	guard *sandbox.Guard           // the run's sandbox, once built (setGuard)
}

// newForcedExit routes sys's stdout through the writer it closes; gone is
// called once if stdout's reader goes away.
func newForcedExit(sys *System, m mode.Mode, gone func()) *forcedExit {
	f := &forcedExit{w: &exitWriter{w: sys.Stdout, gone: gone}, start: sys.Now(), mode: m}
	sys.Stdout = f.w
	return f
}

// setSession records where the session's info comes from.
func (f *forcedExit) setSession(info func() *mode.SessionInfo) {
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.info = info
}

// stdoutGone reports that stdout's reader went away during the run.
func (f *forcedExit) stdoutGone() bool {
	if f == nil {
		return false
	}
	f.w.mu.Lock()
	defer f.w.mu.Unlock()
	return f.w.broken
}

// stdoutStuck reports that stdout's reader did not take a write within
// stopWait after the run was cancelled: the rest was dropped.
func (f *forcedExit) stdoutStuck() bool {
	if f == nil {
		return false
	}
	f.w.mu.Lock()
	defer f.w.mu.Unlock()
	return f.w.stuck
}

func (f *forcedExit) write(now time.Time) {
	f.mu.Lock()
	info := f.info
	f.mu.Unlock()
	if f.mode != mode.JSON && f.mode != mode.Events {
		f.w.last(nil)
		return
	}
	var si *mode.SessionInfo
	if info != nil {
		si = info()
	}
	obj := mode.FailureObject(ai.ClassAborted, errors.New("interrupted again: exited at once; the session keeps what was written before"),
		si, now.Sub(f.start).Milliseconds())
	obj.Reason = string(loop.ReasonAborted)
	f.sandbox(&obj)
	b, _ := pijson.Marshal(obj)
	f.w.last(append(b, '\n'))
}

// exitWriter writes each Write whole, one at a time; after last, or once
// the reader is gone, nothing. It notes when the run's own result object
// went out, so that an interrupt arriving after it adds no second one.
type exitWriter struct {
	mu        sync.Mutex
	w         io.Writer
	gone      func() // called once when a write finds the reader gone
	closed    bool
	broken    bool
	stuck     bool // a write waited stopWait in vain after the run was cancelled
	hadResult bool
}

func (e *exitWriter) Write(p []byte) (int, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return len(p), nil
	}
	e.hadResult = e.hadResult || bytes.HasPrefix(p, []byte(`{"type":"result"`))
	n, err := e.w.Write(p)
	if isBrokenPipe(err) {
		// Nobody reads what the run writes: abort it (the session stays
		// consistent) and write nothing more.
		e.closed, e.broken = true, true
		if e.gone != nil {
			e.gone()
		}
	}
	if isStuck(err) {
		// The run was cancelled and nobody takes its output: drop the rest.
		e.closed, e.stuck = true, true
	}
	return n, err
}

func (e *exitWriter) last(p []byte) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.closed && !e.hadResult && p != nil {
		_, _ = e.w.Write(p)
	}
	e.closed = true
}
