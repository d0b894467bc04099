package loop

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"gopi/pkg/ai"
	"gopi/pkg/tools"
)

// runTools runs one batch concurrently and appends the results in call
// order, never completion order. Every call gets exactly one result, also
// when there are no tools, a tool panics or the run is cancelled.
func (r *run) runTools(calls []ai.Content) []ai.Message {
	for _, c := range calls {
		r.emit(Event{Type: ToolStart, ToolCallID: c.ID, ToolName: c.Name, Args: c.Arguments})
	}
	results := make([]ai.Message, len(calls))
	var mu sync.Mutex // serialises events from the tools' goroutines
	var wg sync.WaitGroup
	for i, c := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out := r.execute(c, func(p tools.Result) {
				partial := output(p)
				mu.Lock()
				defer mu.Unlock()
				r.emit(Event{Type: ToolUpdate, ToolCallID: c.ID, ToolName: c.Name, Args: c.Arguments, Result: &partial})
			})
			results[i] = r.resultMessage(c, out)
			final := ToolOutput{Content: results[i].Content, Details: results[i].Details}
			mu.Lock()
			defer mu.Unlock()
			r.emit(Event{Type: ToolEnd, ToolCallID: c.ID, ToolName: c.Name, Result: &final, IsError: results[i].IsError})
		}()
	}
	wg.Wait()
	for _, m := range results {
		r.add(m)
	}
	return results
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
