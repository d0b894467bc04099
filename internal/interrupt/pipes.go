package interrupt

import (
	"io"
	"os"
	"sync"
	"time"
)

// Pipes are a command's stdout and stderr, written through the runtime's
// poller when stdout is the process's stdout and a pipe or a socket, so
// that Bound can limit how long a write waits for the reader. Out and Err
// are what the command writes to; elsewhere (a file, a terminal, a test's
// buffer, a platform without write deadlines on pipes) they are the
// streams given, and Bound does nothing.
type Pipes struct {
	Out, Err io.Writer
	out      *boundedOut // nil: writes are not bounded
	restore  func()
}

// NewPipes returns the Pipes of stdout and stderr. A stderr on stdout's
// pipe (2>&1) is written through the poller too, and bounded with stdout.
// Restore puts the pipe back as it was.
func NewPipes(stdout, stderr io.Writer) *Pipes {
	p := &Pipes{Out: stdout, Err: stderr, restore: func() {}}
	f, ok := stdout.(*os.File)
	if !ok || f != os.Stdout {
		return p
	}
	w, errw, restore := pollableStdout(f)
	if w == nil {
		return p
	}
	p.out, p.restore = &boundedOut{f: w}, restore
	p.Out = p.out
	if errw != nil && stderr == os.Stderr {
		p.out.stderr = &boundedOut{f: errw}
		p.Err = p.out.stderr
	}
	return p
}

// Bound switches the limit on a write's wait on (StopWait) or off.
func (p *Pipes) Bound(on bool) {
	if p.out != nil {
		p.out.bound(on)
	}
}

// Bounder is Bound when writes can be bounded, nil otherwise.
func (p *Pipes) Bounder() func(on bool) {
	if p.out == nil {
		return nil
	}
	return p.Bound
}

// Restore puts stdout's pipe back in blocking mode (the mode is the
// pipe's, shared with whoever else writes to it).
func (p *Pipes) Restore() { p.restore() }

// boundedOut is stdout when it is a pipe or a socket that takes write
// deadlines: writes wait for the reader as long as it takes, until
// bound(true) (a run was cancelled); from then on each write waits at
// most StopWait, one already waiting included, until bound(false).
type boundedOut struct {
	f       deadlineWriter
	mu      sync.Mutex
	bounded bool
	// stderr is stderr when it shares stdout's pipe (2>&1): bounded with
	// it, so that a message on the way out does not wait for the reader
	// either.
	stderr *boundedOut
}

type deadlineWriter interface {
	io.Writer
	SetWriteDeadline(time.Time) error
}

func (b *boundedOut) Write(p []byte) (int, error) {
	b.mu.Lock()
	if b.bounded {
		_ = b.f.SetWriteDeadline(time.Now().Add(StopWait))
	}
	b.mu.Unlock()
	return b.f.Write(p)
}

// bound switches the limit on a write's wait on or off.
func (b *boundedOut) bound(on bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.bounded = on
	deadline := time.Time{}
	if on {
		deadline = time.Now().Add(StopWait)
	}
	_ = b.f.SetWriteDeadline(deadline)
	if b.stderr != nil {
		b.stderr.bound(on)
	}
}
