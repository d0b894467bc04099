package mode

import (
	"context"
	"fmt"
	"io"
	"time"

	"gopi/pkg/agent"
	"gopi/pkg/ai"
	"gopi/pkg/loop"
	"gopi/pkg/runtime"
)

// Outcome is what a Run produced.
type Outcome struct {
	Result runtime.Result
	Err    error    // the Runtime refused or was poisoned
	Class  ai.Class // "" for success
}

// Cause is the error the run ended with: the Runtime's refusal, else the
// run's own; nil for a run that answered.
func (o Outcome) Cause() error {
	if o.Err != nil {
		return o.Err
	}
	return o.Result.Err
}

// Run sends the prompt, then each of opts.Then, to rt and encodes the
// invocation; its result line goes out through the Output out.Out is or
// is wrapped in. The returned error is an output write failure only; the
// run's own failure is in the Outcome.
func Run(ctx context.Context, rt *runtime.Runtime, prompt []ai.Message, out IO, opts Options) (Outcome, error) {
	if _, err := Parse(string(opts.Mode)); err != nil {
		return Outcome{}, err
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	output := outputFor(out.Out, opts.Mode)
	w := &lineWriter{w: output}
	enc := subscribe(rt, w, out, opts)
	defer enc.stopProgress()
	res, answer, err := prompts(ctx, rt, prompt, opts, enc.stream.settled)
	enc.unsubscribe(w)
	o := Outcome{Result: res, Err: err, Class: Classify(&res, err)}
	if opts.Session != nil {
		opts.Session.LeafID = res.Leaf
	}
	obj := resultObject(&res, err, opts)
	answer.apply(&obj, &o)
	writeAnswer(w, output, obj, opts)
	sayEnd(out.Err, obj, res.Reason, opts)
	return o, w.err
}

// encoding is what a Run subscribed to rt: the events stream (events
// mode), the progress line (print mode on a terminal), the stderr lines
// of retries, trims and compactions.
type encoding struct {
	stream       *eventStream
	unsub        func()
	unsubNotes   func()
	stopProgress func()
}

// subscribe starts encoding rt's events: in events mode the header line
// and every event, in print mode on a terminal a progress line. Every
// retry and every cut of the context is one stderr line, in every mode (a
// terminal's progress line prints its own); so is a compaction, but in
// events mode, whose events tell it.
func subscribe(rt *runtime.Runtime, w *lineWriter, out IO, opts Options) *encoding {
	e := &encoding{unsub: func() {}, unsubNotes: func() {}, stopProgress: func() {}}
	switch opts.Mode {
	case Events:
		w.json(opts.Header)
		e.stream = &eventStream{w: w, now: opts.Now, model: opts.Header.Model}
		e.unsub = rt.Control().Subscribe(func(ev agent.Event) { e.stream.event(ev.Event) }, agent.Except(agent.RunEnd))
	case Print:
		if out.ErrTerminal {
			p := newProgress(out.Err, opts.Now)
			e.unsub = rt.Control().Subscribe(p.event, agent.Except(agent.RunEnd, loop.MessageUpdate))
			e.stopProgress = p.stop
		}
	}
	if !(opts.Mode == Print && out.ErrTerminal) {
		e.unsubNotes = rt.Control().Subscribe(func(ev agent.Event) { noteLine(out.Err, ev, opts.Mode) },
			agent.Only(loop.RetryStart, loop.SummaryRetryScheduled, loop.ContextTrimmed, loop.CompactionEnd))
	}
	return e
}

// unsubscribe ends the encoding of events: the last event lines are
// written, and the stderr lines end with them.
func (e *encoding) unsubscribe(w *lineWriter) {
	e.unsub()
	w.close()
	e.unsubNotes()
}

// noteLine says on stderr that a request is retried, the context was cut
// or compacted (not in events mode, whose events say it).
func noteLine(w io.Writer, e agent.Event, m Mode) {
	switch e.Type {
	case loop.ContextTrimmed:
		fmt.Fprintln(w, trimLine(e.Trim))
	case loop.SummaryRetryScheduled:
		fmt.Fprintln(w, summaryRetryLine(e.Retry))
	case loop.CompactionEnd:
		if line := compactionLine(e.Compaction); line != "" && m != Events {
			fmt.Fprintln(w, line)
		}
	default:
		fmt.Fprintln(w, retryLine(e.Retry))
	}
}

// prompts sends the prompt, then each of opts.Then while the one before
// ended with stop or length, then checks the answer against opts.Schema
// (sending it back while it does not satisfy it); settled is told each
// run's end.
func prompts(ctx context.Context, rt *runtime.Runtime, prompt []ai.Message, opts Options, settled func(loop.Reason)) (runtime.Result, structuredAnswer, error) {
	res, err := rt.Prompt(ctx, prompt...)
	settled(res.Reason)
	for _, m := range opts.Then {
		if err != nil || (res.Reason != loop.ReasonStop && res.Reason != loop.ReasonLength) {
			break
		}
		var next runtime.Result
		m.Timestamp = opts.Now().UnixMilli() // sent now, not when the arguments were read
		next, err = rt.Prompt(ctx, m)
		settled(next.Reason)
		res = chain(res, next)
	}
	var answer structuredAnswer
	if opts.Schema != nil {
		res, answer, err = checkAnswer(ctx, rt, res, err, opts, settled)
	}
	return res, answer, err
}

// resultObject is the result object of a finished run, with its sandbox
// and the files its tools changed.
func resultObject(res *runtime.Result, err error, opts Options) ResultObject {
	obj := NewResultObject(res, err, opts.Session, opts.Now().Sub(opts.Start).Milliseconds())
	obj.Sandbox, obj.Denials = string(opts.Guard.Mode()), opts.Guard.Denials()
	if opts.Files != nil {
		if files, inexact := opts.Files(); files != nil {
			obj.Files, obj.FilesInexact = files, inexact
		}
	}
	return obj
}

// writeAnswer writes the end of the run's output: in print mode the
// answer (the structured one with a schema), in json and events mode the
// result line.
func writeAnswer(w *lineWriter, output *Output, obj ResultObject, opts Options) {
	switch {
	case opts.Mode != Print:
		w.result(output, obj)
	case opts.Schema != nil:
		if obj.Structured != nil {
			w.line(obj.Structured)
		}
	case obj.Text != "":
		w.text(obj.Text)
	}
}

// sayEnd says on stderr how a run that did not simply answer ended: its
// error, an answer cut short, no answer at all (print mode).
func sayEnd(errw io.Writer, obj ResultObject, reason loop.Reason, opts Options) {
	switch {
	case obj.Error != nil:
		fmt.Fprintf(errw, "gopi: %s: %s\n", obj.Error.Class, obj.Error.Message)
	case reason == loop.ReasonLength:
		fmt.Fprintln(errw, "gopi: warning: the answer was cut short at the output token limit (raise --max-tokens)")
	}
	if opts.Mode == Print && obj.Error == nil && obj.Text == "" && opts.Schema == nil {
		// A run may do its work with tools and end without words; a script
		// that captured nothing is told why (json and events carry "text": "").
		fmt.Fprintln(errw, emptyAnswer)
	}
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
	out.ByModel = nil
	for _, by := range [][]runtime.ModelUsage{first.ByModel, next.ByModel} {
		for _, m := range by {
			out.ByModel = runtime.AddUsage(out.ByModel, m.Provider, m.Model, m.Usage)
		}
	}
	return out
}

// emptyAnswer is said on stderr in print mode when a run that succeeded
// ended without answer text; the exit code stays 0.
const emptyAnswer = "gopi: the model ended without an answer"

// WriteFailure reports an invocation that failed before its run: json
// and events write the result object; every mode says why on Err.
// In events mode a session that was opened still gets its header line
// first (header may be nil when none was opened). The result goes out
// through the Output out.Out is or is wrapped in: once.
func WriteFailure(out IO, m Mode, class ai.Class, err error, info *SessionInfo, header *Header, durationMs int64) error {
	output := outputFor(out.Out, m)
	w := &lineWriter{w: output}
	if m == Events && header != nil {
		w.json(*header)
	}
	w.result(output, FailureObject(class, err, info, durationMs))
	fmt.Fprintf(out.Err, "gopi: %s\n", err)
	return w.err
}
