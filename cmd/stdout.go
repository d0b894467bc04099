package cmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"gopi/pkg/loop"
)

// stopWait is how long one write to stdout may wait for its reader once
// the run was cancelled (a signal, stdin's end in rpc, an abort): a
// client that stops reading does not keep gopi from ending its session
// and exiting. The rest of the output is then dropped. It is well below
// the time a cancelled run waits for its tools (loop.DefaultToolGrace):
// a tool whose progress event waits on stdout still stops in time.
const stopWait = loop.DefaultToolGrace / 2

// boundedOut is stdout when it is a pipe or a socket that takes write
// deadlines: writes wait for the reader as long as it takes, until
// bound(true) (a run was cancelled); from then on each write waits at
// most stopWait, one already waiting included, until bound(false).
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
		_ = b.f.SetWriteDeadline(time.Now().Add(stopWait))
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
		deadline = time.Now().Add(stopWait)
	}
	_ = b.f.SetWriteDeadline(deadline)
	if b.stderr != nil {
		b.stderr.bound(on)
	}
}

// stuckLine says on stderr that stdout's reader stopped reading.
var stuckLine = fmt.Sprintf("gopi: stdout was not read for %v after the run was aborted: the rest of the output was dropped; the session keeps what was done", stopWait)

// isStuck reports a write to stdout that its reader did not take within
// stopWait after the run was cancelled.
func isStuck(err error) bool { return errors.Is(err, os.ErrDeadlineExceeded) }

// boundStdout returns a boundedOut over sys.Stdout when it is the
// process's stdout and a pipe or a socket (nil otherwise: a file or a
// terminal, or a platform without write deadlines on it), and what
// puts stdout back as it was. A stderr on the same pipe is written
// through the poller too, and bounded with stdout.
func boundStdout(sys *System) (*boundedOut, func()) {
	f, ok := sys.Stdout.(*os.File)
	if !ok || f != os.Stdout {
		return nil, func() {}
	}
	w, errw, restore := pollableStdout(f)
	if w == nil {
		return nil, func() {}
	}
	b := &boundedOut{f: w}
	sys.Stdout = b
	if errw != nil && sys.Stderr == os.Stderr {
		b.stderr = &boundedOut{f: errw}
		sys.Stderr = b.stderr
	}
	return b, restore
}
