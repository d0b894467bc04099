package mode

import (
	"errors"
	"io"
	"sync"

	"gopi/pkg/ai"
	"gopi/pkg/loop"
	"gopi/pkg/sandbox"
)

// Output is stdout of one invocation of gopi run, in its mode. It holds
// the promise of json and events output: exactly one result line, on
// every exit. Every exit writes its result through Result (the run's
// own, a failure before the run, a flag error) or Abandon (a forced
// exit): the first one ends the output, and whatever is written after it
// (a second result, an event line, the answer's text) is dropped without
// an error. In print mode no exit writes a result line; an exit still
// ends the output.
type Output struct {
	mu    sync.Mutex
	w     io.Writer
	mode  Mode
	ended bool

	infoMu  sync.Mutex
	session func() *SessionInfo // the run's session, once opened
	guard   *sandbox.Guard      // the run's sandbox, once built
}

// NewOutput writes mode m's output to w.
func NewOutput(w io.Writer, m Mode) *Output { return &Output{w: w, mode: m} }

// outputFor is w when it is an Output already (gopi run hands its own to
// Run and WriteFailure), a new one on w otherwise.
func outputFor(w io.Writer, m Mode) *Output {
	if o, ok := w.(*Output); ok {
		return o
	}
	return NewOutput(w, m)
}

// Write writes p whole, unless the output ended: then p is dropped.
func (o *Output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.ended {
		return len(p), nil
	}
	return o.w.Write(p)
}

// Result writes obj as the one result line in json and events mode,
// unless the output ended, and ends it.
func (o *Output) Result(obj ResultObject) error {
	return o.end(append(encodeLine(obj), '\n'))
}

// end writes line (nil: nothing) in json and events mode, unless the
// output ended, and ends it.
func (o *Output) end(line []byte) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.ended {
		return nil
	}
	o.ended = true
	if line == nil || (o.mode != JSON && o.mode != Events) {
		return nil
	}
	_, err := o.w.Write(line)
	return err
}

// Opened records the run's session (as far as it got) and sandbox, which
// a forced exit's result line names.
func (o *Output) Opened(session func() *SessionInfo, guard *sandbox.Guard) {
	o.infoMu.Lock()
	defer o.infoMu.Unlock()
	o.session, o.guard = session, guard
}

// errForced is the error of a run that a second interrupt ended at once.
var errForced = errors.New("interrupted again: exited at once; the session keeps what was written before")

// Abandon ends the output at once (a second interrupt, durationMs into
// the invocation): in json and events mode it writes the result line of
// a run that ended there (reason aborted, the session as far as it got)
// unless one went out already.
func (o *Output) Abandon(durationMs int64) {
	o.infoMu.Lock()
	session, guard := o.session, o.guard
	o.infoMu.Unlock()
	var info *SessionInfo
	if session != nil {
		info = session()
	}
	obj := FailureObject(ai.ClassAborted, errForced, info, durationMs)
	obj.Reason = string(loop.ReasonAborted)
	obj.Sandbox, obj.Denials = string(guard.Mode()), guard.Denials()
	_ = o.Result(obj)
}
