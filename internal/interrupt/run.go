package interrupt

import (
	"context"
	"io"
	"sync/atomic"
)

// Run is what gopi run holds while it runs: a context that the first
// abort signal cancels, and so does stdout's reader going away; a stdout
// and a stderr that wait until the signals are trapped and, once the run
// is cancelled, wait at most StopWait for a reader; and the forced exit's
// last words, written on a second signal before the process exits.
type Run struct {
	ctx    context.Context
	stdout *Stdout
	stderr io.Writer
	ready  func()
	force  atomic.Pointer[func()]
	stop   func()
}

// TrapRun sets a run's trap. The signals are registered in the
// background: Ready waits until they are.
func TrapRun(parent context.Context, c Config) *Run {
	ctx, cancel := context.WithCancel(parent)
	pipes := NewPipes(c.Stdout, c.Stderr)
	unbound := func() bool { return false }
	if pipes.out != nil {
		unbound = context.AfterFunc(ctx, func() { pipes.Bound(true) })
	}
	reg := register(c.Signals)
	r := &Run{ctx: ctx, ready: reg.wait}
	r.stdout = NewStdout(gated{pipes.Out, reg.wait}, cancel)
	r.stderr = gated{pipes.Err, reg.wait}
	c.Stderr = r.stderr
	unwatch := reg.watch(c, cancel, r.lastWords)
	r.stop = func() {
		unwatch()
		unbound()
		cancel()
		pipes.Restore()
	}
	return r
}

// Context is the run's context.
func (r *Run) Context() context.Context { return r.ctx }

// Stdout is the run's stdout: every write of the run to stdout goes
// through it.
func (r *Run) Stdout() *Stdout { return r.stdout }

// Stderr is the run's stderr.
func (r *Run) Stderr() io.Writer { return r.stderr }

// Ready returns once the run's signals are trapped: called before stdin
// is read or anything is started.
func (r *Run) Ready() { r.ready() }

// OnForce sets the forced exit's last words: what a second signal has
// written (within ForceWait) before the process exits.
func (r *Run) OnForce(f func()) { r.force.Store(&f) }

func (r *Run) lastWords() {
	if f := r.force.Load(); f != nil {
		(*f)()
	}
}

// Stop ends the trap: the signals are no longer caught, the context is
// cancelled and stdout's pipe is put back as it was.
func (r *Run) Stop() { r.stop() }

// gated writes to w once ready returns: no write reaches a broken pipe
// before SIGPIPE is caught.
type gated struct {
	w     io.Writer
	ready func()
}

func (g gated) Write(p []byte) (int, error) {
	g.ready()
	return g.w.Write(p)
}
