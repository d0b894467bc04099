package mode

import (
	"io"
	"time"

	"gopi/pkg/ai"
	"gopi/pkg/loop"
)

// Lines is an output of JSON lines several writers share (rpc's
// responses beside a Runtime's events): each line whole, delta lines
// batched as in events mode, the first write error kept and nothing
// written after it.
type Lines struct{ w lineWriter }

func NewLines(w io.Writer) *Lines { return &Lines{w: lineWriter{w: w}} }

// JSON writes v as one line (an encoding_error object if it cannot be encoded).
func (l *Lines) JSON(v any)    { l.w.json(v) }
func (l *Lines) Line(b []byte) { l.w.line(b) }

// Close writes the delta lines still waiting.
func (l *Lines) Close() { l.w.close() }

// Err is the first write error.
func (l *Lines) Err() error {
	l.w.mu.Lock()
	defer l.w.mu.Unlock()
	return l.w.err
}

// EventStream is one Runtime's events on l, as events mode writes them
// for model's answers. Its methods are called from one goroutine at a time.
type EventStream struct{ s eventStream }

func (l *Lines) EventStream(model ai.Info, now func() time.Time) *EventStream {
	return &EventStream{s: eventStream{w: &l.w, now: now, model: model}}
}

// Event writes an Agent event, reshaped as events mode reshapes it;
// Write writes ev as it is.
func (e *EventStream) Event(ev loop.Event) { e.s.event(ev) }
func (e *EventStream) Write(ev loop.Event) { e.s.write(ev) }

// Settled writes agent_settled and readies the stream for the next prompt.
func (e *EventStream) Settled(reason loop.Reason) { e.s.settled(reason) }

// QueueAfter writes an empty queue_update after n more user messages end.
func (e *EventStream) QueueAfter(n int) { e.s.queueAfter = n }
