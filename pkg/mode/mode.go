// Package mode encodes what a Runtime did: print writes the answer,
// json one result object, events the session header, every Agent event and
// the result object, one JSON object per line. A mode never creates a
// Runtime and calls Prompt exactly once; an output write failure is
// returned as it is, and the session is not rolled back.
package mode

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"gopi/pkg/agent"
	"gopi/pkg/ai"
	"gopi/pkg/loop"
	"gopi/pkg/runtime"
	"gopi/pkg/session"
)

// Mode is an output encoding.
type Mode string

// The modes of gopi run.
const (
	Print  Mode = "print"
	JSON   Mode = "json"
	Events Mode = "events"
)

// Parse checks a --mode value.
func Parse(s string) (Mode, error) {
	switch m := Mode(s); m {
	case Print, JSON, Events:
		return m, nil
	}
	return "", fmt.Errorf("unknown mode %q: use print, json or events", s)
}

// IO is where a mode writes.
type IO struct {
	Out io.Writer
	Err io.Writer
	// ErrTerminal enables progress lines on Err (a spinner, retries).
	ErrTerminal bool
}

// Header is the first line of events output: the session header with the
// file, the leaf the run continues from, the model and the active tools.
type Header struct {
	session.Header
	File   string   `json:"-"`
	LeafID string   `json:"-"` // "" for a new session
	Model  ai.Info  `json:"-"`
	Tools  []string `json:"-"`
}

// MarshalJSON writes the session header line as the session file has it,
// with gopi's fields added after its own.
func (h Header) MarshalJSON() ([]byte, error) {
	raw, err := json.Marshal(h.Header)
	if err != nil {
		return nil, err
	}
	var leaf *string
	if h.LeafID != "" {
		leaf = &h.LeafID
	}
	tools := h.Tools
	if tools == nil {
		tools = []string{}
	}
	type model struct {
		Provider string `json:"provider"`
		ID       string `json:"id"`
	}
	extra, err := ai.MarshalNoEscape(struct {
		File   string   `json:"file"`
		LeafID *string  `json:"leafId"`
		Model  model    `json:"model"`
		Tools  []string `json:"tools"`
	}{h.File, leaf, model{h.Model.Provider, h.Model.ID}, tools})
	if err != nil {
		return nil, err
	}
	raw = bytes.TrimSuffix(bytes.TrimSpace(raw), []byte("}"))
	return append(append(raw, ','), extra[1:]...), nil
}

// Options configure one Run.
type Options struct {
	Mode    Mode
	Session *SessionInfo // nil: not shown; LeafID is filled in after the run
	Header  Header       // events only
	Start   time.Time    // when the invocation began, for durationMs
	Now     func() time.Time
	// Then are further prompts, one message each, as pi sends the message
	// arguments after the first: each is sent once the one before it
	// ended with stop or length (an error, an abort or the step limit
	// ends the invocation there). The outcome covers them all: the
	// messages, steps and usage of every run, the reason and text of the
	// last.
	Then []ai.Message
}

// Outcome is what a Run produced.
type Outcome struct {
	Result runtime.Result
	Err    error    // the Runtime refused or was poisoned
	Class  ai.Class // "" for success
}

// Run calls rt.Prompt once and encodes the run. The returned error is an
// output write failure only; the run's own failure is in the Outcome.
func Run(ctx context.Context, rt *runtime.Runtime, prompt []ai.Message, out IO, opts Options) (Outcome, error) {
	if _, err := Parse(string(opts.Mode)); err != nil {
		return Outcome{}, err
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	w := &lineWriter{w: out.Out}
	var unsub func()
	var stream *eventStream
	switch opts.Mode {
	case Events:
		w.json(opts.Header)
		stream = &eventStream{w: w, now: opts.Now, model: opts.Header.Model}
		unsub = rt.Control().Subscribe(func(e agent.Event) { stream.event(e.Event) }, agent.Except(agent.RunEnd))
	case Print:
		if out.ErrTerminal {
			p := newProgress(out.Err, opts.Now)
			unsub = rt.Control().Subscribe(p.event, agent.Except(agent.RunEnd, loop.MessageUpdate))
			defer p.stop()
		}
	}
	// Every retry and every cut of the context is one stderr line, in
	// every mode (a terminal's progress line prints its own).
	var unsubRetry func()
	if !(opts.Mode == Print && out.ErrTerminal) {
		unsubRetry = rt.Control().Subscribe(func(e agent.Event) {
			if e.Type == loop.ContextTrimmed {
				fmt.Fprintln(out.Err, trimLine(e.Trim))
				return
			}
			fmt.Fprintln(out.Err, retryLine(e.Retry))
		}, agent.Only(loop.RetryStart, loop.ContextTrimmed))
	}
	res, err := rt.Prompt(ctx, prompt...)
	stream.settled(res.Reason)
	for _, m := range opts.Then {
		if err != nil || (res.Reason != loop.ReasonStop && res.Reason != loop.ReasonLength) {
			break
		}
		var next runtime.Result
		m.Timestamp = opts.Now().UnixMilli() // sent now, not when the arguments were read
		next, err = rt.Prompt(ctx, m)
		stream.settled(next.Reason)
		res = chain(res, next)
	}
	if unsub != nil {
		unsub()
	}
	if unsubRetry != nil {
		unsubRetry()
	}
	o := Outcome{Result: res, Err: err, Class: Classify(&res, err)}
	if opts.Session != nil {
		opts.Session.LeafID = res.Leaf
	}
	obj := NewResultObject(&res, err, opts.Session, opts.Now().Sub(opts.Start).Milliseconds())
	switch opts.Mode {
	case Print:
		if obj.Text != "" {
			w.text(obj.Text)
		}
	default:
		w.json(obj)
	}
	switch {
	case obj.Error != nil:
		fmt.Fprintf(out.Err, "gopi: %s: %s\n", obj.Error.Class, obj.Error.Message)
	case res.Reason == loop.ReasonLength:
		fmt.Fprintln(out.Err, "gopi: warning: the answer was cut short at the output token limit (raise --max-tokens)")
	}
	if opts.Mode == Print && obj.Error == nil && obj.Text == "" {
		// A run may do its work with tools and end without words; a script
		// that captured nothing is told why (json and events carry "text": "").
		fmt.Fprintln(out.Err, emptyAnswer)
	}
	return o, w.err
}

// chain is the result of two runs, one after the other: the first's
// transcript with the second's new messages, both runs' steps and usage,
// the second's reason, error and leaf.
func chain(first, next runtime.Result) runtime.Result {
	out := next
	out.Messages = append(ai.CloneMessages(first.Messages), next.New()...)
	out.Start = first.Start
	out.Steps += first.Steps
	out.Usage = first.Usage.Add(next.Usage)
	return out
}

// emptyAnswer is said on stderr in print mode when a run that succeeded
// ended without answer text; the exit code stays 0.
const emptyAnswer = "gopi: the model ended without an answer"

// WriteFailure reports an invocation that failed before its run: json
// and events write the result object; every mode says why on Err.
// In events mode a session that was opened still gets its header line
// first (header may be nil when none was opened).
func WriteFailure(out IO, m Mode, class ai.Class, err error, info *SessionInfo, header *Header, durationMs int64) error {
	w := &lineWriter{w: out.Out}
	if m == Events && header != nil {
		w.json(*header)
	}
	if m == JSON || m == Events {
		w.json(FailureObject(class, err, info, durationMs))
	}
	fmt.Fprintf(out.Err, "gopi: %s\n", err)
	return w.err
}

// lineWriter writes whole lines and keeps the first error.
type lineWriter struct {
	mu  sync.Mutex
	w   io.Writer
	err error
	buf []byte // event's line, reused
}

func (l *lineWriter) json(v any) {
	b, err := ai.MarshalNoEscape(v)
	if err != nil {
		b, _ = json.Marshal(map[string]string{"type": "encoding_error", "message": err.Error()})
	}
	l.line(b)
}

// event writes one event line. Events come one at a time and most are
// deltas: each is encoded into the line of the event before (a buffer
// of a long message's size is not kept), without encoding/json's
// reflection for deltas (see loop.Encoder).
func (l *lineWriter) event(enc *loop.Encoder, e loop.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, err := enc.Append(l.buf[:0], e)
	if err != nil {
		b, _ = json.Marshal(map[string]string{"type": "encoding_error", "message": err.Error()})
	}
	b = append(b, '\n')
	if l.err == nil {
		_, l.err = l.w.Write(b)
	}
	if l.buf = b; cap(b) > 64<<10 {
		l.buf = nil
	}
}

func (l *lineWriter) text(s string) {
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err == nil {
		_, l.err = io.WriteString(l.w, s)
	}
}

func (l *lineWriter) line(b []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err == nil {
		_, l.err = l.w.Write(append(b, '\n'))
	}
}

// retryLine says a model request failed and will be sent again.
func retryLine(r *ai.RetryInfo) string {
	return fmt.Sprintf("gopi: model request failed (%s); retry %d of %d in %.1fs",
		r.ErrorMessage, r.Attempt, r.MaxAttempts-1, r.Delay.Seconds())
}
