package loop

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"gopi/pkg/ai"
	"gopi/pkg/tools"
)

// runTools runs one batch concurrently and appends the results in call
// order, never completion order. Every call gets exactly one result, also
// when there are no tools, a tool panics or the run is cancelled. Once the
// run is cancelled it waits at most cfg.ToolGrace for the tools still
// running: a tool that ignores its context (a read blocked on a FIFO, a
// custom tool) must not hold --timeout or an interrupt forever.
func (r *run) runTools(calls []ai.Content) []ai.Message {
	for _, c := range calls {
		r.emit(Event{Type: ToolStart, ToolCallID: c.ID, ToolName: c.Name, Args: c.Arguments})
	}
	b := &batch{results: make([]ai.Message, len(calls)), done: make([]bool, len(calls))}
	// Buffered so that a tool ending after the run stopped waiting for it
	// never blocks.
	finished := make(chan struct{}, len(calls))
	for i, c := range calls {
		go func() {
			defer func() { finished <- struct{}{} }()
			r.runOne(b, i, c)
		}()
	}
	r.await(finished, len(calls))
	b.mu.Lock()
	b.closed = true
	done := slices.Clone(b.done)
	b.mu.Unlock()
	for i, c := range calls {
		if done[i] {
			continue
		}
		b.results[i] = r.abandonedResult(c)
		final := ToolOutput{Content: b.results[i].Content}
		r.emit(Event{Type: ToolEnd, ToolCallID: c.ID, ToolName: c.Name, Result: &final, IsError: true})
	}
	for _, m := range b.results {
		r.add(m)
	}
	return b.results
}

// batch is what one batch's tools share with the run. Once the run stops
// waiting (closed), a tool still running writes no result and emits no
// event: its call already has its aborted result.
type batch struct {
	mu      sync.Mutex // serialises the tools' events; guards the rest
	closed  bool
	results []ai.Message
	done    []bool
}

// runOne runs call i of the batch and records its result, unless the run
// already gave up on it.
func (r *run) runOne(b *batch, i int, c ai.Content) {
	b.mu.Lock() // the clock is asked under the lock, as for the results' timestamps
	began := r.cfg.Now()
	b.mu.Unlock()
	elapsed := r.startWatch()
	out := r.execute(c, func(p tools.Result) {
		partial := output(p)
		b.mu.Lock()
		defer b.mu.Unlock()
		if !b.closed {
			r.emit(Event{Type: ToolUpdate, ToolCallID: c.ID, ToolName: c.Name, Args: c.Arguments, Result: &partial})
		}
	})
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return
	}
	took := r.cfg.Now().Sub(began)
	msg := r.resultMessage(c, out)
	setDuration(&msg, elapsed)
	b.results[i], b.done[i] = msg, true
	final := ToolOutput{Content: msg.Content, Details: msg.Details}
	r.emit(Event{Type: ToolEnd, ToolCallID: c.ID, ToolName: c.Name, Result: &final, IsError: msg.IsError,
		Duration: took, Timed: true})
}

// await waits until n tools finished, or, once the run is cancelled, for
// at most the grace period.
func (r *run) await(finished <-chan struct{}, n int) {
	cancelled := r.ctx.Done()
	var grace <-chan time.Time
	for n > 0 {
		select {
		case <-finished:
			n--
		case <-cancelled:
			t := time.NewTimer(r.cfg.ToolGrace)
			defer t.Stop()
			cancelled, grace = nil, t.C
		case <-grace:
			return
		}
	}
}

// abandonedResult is the error result of a call whose tool did not stop
// within the grace period after the run was cancelled.
func (r *run) abandonedResult(c ai.Content) ai.Message {
	return r.skippedResult(c, fmt.Sprintf(
		"Tool call aborted: the run was cancelled (%v) and %s did not stop within %v. Its effects, if any, were not undone.",
		r.ctx.Err(), c.Name, r.cfg.ToolGrace))
}

// execute runs one call, turning a missing executor or a panic into an
// error result (the executor may be a wrapper that does not recover).
func (r *run) execute(c ai.Content, update func(tools.Result)) (out tools.Result) {
	defer func() {
		if p := recover(); p != nil {
			out = tools.ErrorResult(fmt.Sprintf("Tool %s crashed: %v", c.Name, p))
		}
	}()
	if r.cfg.Tools == nil {
		return tools.ErrorResult(fmt.Sprintf("Tool %q not found: no tools are enabled for this run.", c.Name))
	}
	return r.cfg.Tools.Execute(r.ctx, c, update)
}

func output(p tools.Result) ToolOutput {
	d, err := marshalDetails(p.Details)
	if err != nil {
		d = nil
	}
	return ToolOutput{Content: validContent(p.Content), Details: d}
}

// resultMessage turns a tool's output into the toolResult message. Details
// that cannot be serialised replace the result with a standard error
// result for the same call: the tool may have had effects, but its output
// cannot enter the transcript.
func (r *run) resultMessage(c ai.Content, out tools.Result) ai.Message {
	msg := ai.Message{Role: ai.RoleToolResult, ToolCallID: c.ID, ToolName: c.Name, Timestamp: r.now()}
	details, err := marshalDetails(out.Details)
	if err != nil {
		msg.Content = []ai.Content{ai.TextContent(fmt.Sprintf(
			"Tool %s returned a result that cannot be recorded (its details are not serialisable: %v). Its effects, if any, were not undone.", c.Name, err))}
		msg.IsError = true
		return msg
	}
	msg.Content = validContent(out.Content)
	if msg.Content == nil {
		msg.Content = []ai.Content{}
	}
	msg.Details = details
	msg.IsError = out.IsError
	return msg
}

func marshalDetails(d any) (json.RawMessage, error) {
	switch v := d.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		if !json.Valid(v) {
			return nil, fmt.Errorf("invalid JSON")
		}
		return append(json.RawMessage(nil), v...), nil
	}
	return json.Marshal(d)
}

// validContent makes text valid UTF-8 (the session file must be).
func validContent(cs []ai.Content) []ai.Content {
	out := make([]ai.Content, len(cs))
	for i, c := range cs {
		if c.Type == ai.TypeText && !utf8.ValidString(c.Text) {
			c.Text = strings.ToValidUTF8(c.Text, "\uFFFD")
		}
		out[i] = c
	}
	return out
}

// skippedResult is the error result of a call that never ran.
func (r *run) skippedResult(c ai.Content, text string) ai.Message {
	return r.resultMessage(c, tools.ErrorResult(text))
}
