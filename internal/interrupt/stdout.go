package interrupt

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// StopWait is how long one write to stdout may wait for its reader once
// the run was cancelled (a signal, stdin's end in rpc, an abort): a
// client that stops reading does not keep gopi from ending its session
// and exiting. The rest of the output is then dropped. It is well below
// the time a cancelled run waits for its tools (loop.DefaultToolGrace,
// 2s): a tool whose progress event waits on stdout still stops in time.
const StopWait = time.Second

// StuckLine says on stderr that stdout's reader stopped reading.
var StuckLine = fmt.Sprintf("gopi: stdout was not read for %v after the run was aborted: the rest of the output was dropped; the session keeps what was done", StopWait)

// IsStuck reports a write to stdout that its reader did not take within
// StopWait after the run was cancelled.
func IsStuck(err error) bool { return errors.Is(err, os.ErrDeadlineExceeded) }

// Stdout is a run's stdout: each Write whole, one at a time. Once a
// write finds the reader gone (IsBrokenPipe) it calls gone (which
// cancels the run) and takes nothing more; once a write waited StopWait
// in vain after the run was cancelled (IsStuck), it takes nothing more
// either. What it no longer takes is dropped without an error.
type Stdout struct {
	mu     sync.Mutex
	w      io.Writer
	gone   func() // called once when a write finds the reader gone
	closed bool
	broken bool
	stuck  bool
}

// NewStdout writes to w and calls gone (nil: nothing) when w's reader
// goes away.
func NewStdout(w io.Writer, gone func()) *Stdout {
	return &Stdout{w: w, gone: gone}
}

func (s *Stdout) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return len(p), nil
	}
	n, err := s.w.Write(p)
	if IsBrokenPipe(err) {
		// Nobody reads what the run writes: abort it (the session stays
		// consistent) and write nothing more.
		s.closed, s.broken = true, true
		if s.gone != nil {
			s.gone()
		}
	}
	if IsStuck(err) {
		// The run was cancelled and nobody takes its output: drop the rest.
		s.closed, s.stuck = true, true
	}
	return n, err
}

// Gone reports that stdout's reader went away during the run.
func (s *Stdout) Gone() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.broken
}

// Stuck reports that stdout's reader did not take a write within
// StopWait after the run was cancelled: the rest was dropped.
func (s *Stdout) Stuck() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stuck
}

// Lost is the line that says on stderr that nobody reads the run's
// output any more, "" while stdout is read; ended says the run had ended
// on its own (it was not aborted). A run whose stdout is lost exits
// ExitCode, as an interrupted one.
func (s *Stdout) Lost(ended bool) string {
	switch {
	case s.Gone():
		// Like an interrupt, whether the run was still going (it was
		// aborted) or had just ended.
		what := "the run was aborted"
		if ended {
			what = "its end was not written"
		}
		return "gopi: stdout was closed by its reader: " + what + "; the session keeps what was done"
	case s.Stuck():
		// Only a cancelled run bounds its writes: it ends as interrupted.
		return StuckLine
	}
	return ""
}
