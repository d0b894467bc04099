package agent

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"gopi/pkg/ai"
	"gopi/pkg/loop"
)

// failsafe bounds every wait of these tests: far longer than any run here
// takes on a loaded machine, it only turns a deadlock into a failure.
const failsafe = 30 * time.Second

// within runs f on its own goroutine and returns what it returns; when f
// has not returned after the failsafe, the test fails (a lock left held,
// a dispatch that never ends) instead of hanging.
func within[T any](t *testing.T, what string, f func() T) T {
	t.Helper()
	done := make(chan T, 1)
	go func() { done <- f() }()
	select {
	case v := <-done:
		return v
	case <-time.After(failsafe):
		t.Fatalf("%s did not return within %s: the Agent is stuck", what, failsafe)
		panic("unreachable")
	}
}

// outcome is what Prompt or Continue returned.
type outcome struct {
	res loop.Result
	err error
}

func promptWithin(t *testing.T, a *Agent, text string) outcome {
	t.Helper()
	return within(t, fmt.Sprintf("Prompt(%q)", text), func() outcome {
		res, err := a.PromptText(context.Background(), text)
		return outcome{res, err}
	})
}

func continueWithin(t *testing.T, a *Agent) outcome {
	t.Helper()
	return within(t, "Continue", func() outcome {
		res, err := a.Continue(context.Background())
		return outcome{res, err}
	})
}

// wait receives from ch, failing the test after the failsafe.
func wait[T any](t *testing.T, what string, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(failsafe):
		t.Fatalf("waited %s for %s", failsafe, what)
		panic("unreachable")
	}
}

// describe writes an event with its payload: run, type, then what the
// event carries (message role:text/stop, stream type:delta, tool call,
// tool output, turn results, agent_end messages, run_end result, unsent).
func describe(e Event) string {
	var b strings.Builder
	fmt.Fprintf(&b, "run%d %s", e.RunID, e.Type)
	if m := e.Message; m != nil {
		fmt.Fprintf(&b, " %s:%q", m.Role, m.Text())
		if m.StopReason != "" {
			fmt.Fprintf(&b, "/%s", m.StopReason)
		}
	}
	if s := e.Stream; s != nil {
		fmt.Fprintf(&b, " %s:%q", s.Type, s.Delta)
	}
	if e.ToolCallID != "" {
		fmt.Fprintf(&b, " %s(%s)%s", e.ToolCallID, e.ToolName, e.Args)
	}
	if o := e.Event.Result; o != nil {
		out := ai.Message{Content: o.Content}
		fmt.Fprintf(&b, " out=%q", out.Text())
		if e.IsError {
			b.WriteString(" error")
		}
	}
	if e.ToolResults != nil {
		fmt.Fprintf(&b, " results=%q", texts(e.ToolResults))
	}
	if e.Messages != nil {
		fmt.Fprintf(&b, " messages=%q", texts(e.Messages))
	}
	if r := e.Result; r != nil {
		fmt.Fprintf(&b, " result=%s start=%d steps=%d %q", r.Reason, r.Start, r.Steps, texts(r.Messages))
	}
	if e.Unsent != nil {
		fmt.Fprintf(&b, " unsent=%q", texts(e.Unsent))
	}
	return b.String()
}

// stateTag writes what a display reads from a State.
func stateTag(s State) string {
	tag := fmt.Sprintf("[%s run%d %q", s.Status, s.RunID, texts(s.Messages))
	if s.StreamingText != "" {
		tag += fmt.Sprintf(" streaming=%q", s.StreamingText)
	}
	if len(s.PendingToolCalls) > 0 {
		tag += fmt.Sprintf(" pending=%v", s.PendingToolCalls)
	}
	if s.LastReason != "" {
		tag += " last=" + string(s.LastReason)
	}
	if s.ErrorMessage != "" {
		tag += fmt.Sprintf(" error=%q", s.ErrorMessage)
	}
	return tag + "]"
}

// scribble changes every text an event lets its receiver reach: what a
// careless subscriber might do to the copy it was given.
func scribble(e Event) {
	msgs := func(ms []ai.Message) {
		for i := range ms {
			for j := range ms[i].Content {
				ms[i].Content[j].Text = "scribbled"
				for k := range ms[i].Content[j].Arguments {
					ms[i].Content[j].Arguments[k] = '~'
				}
			}
			ms[i].ErrorMessage = "scribbled"
		}
	}
	if e.Message != nil {
		msgs([]ai.Message{*e.Message})
	}
	if e.Stream != nil && e.Stream.Message != nil {
		msgs([]ai.Message{*e.Stream.Message})
	}
	if e.Event.Result != nil {
		for j := range e.Event.Result.Content {
			e.Event.Result.Content[j].Text = "scribbled"
		}
	}
	for i := range e.Args {
		e.Args[i] = '~'
	}
	msgs(e.ToolResults)
	msgs(e.Messages)
	msgs(e.Unsent)
	if e.Result != nil {
		msgs(e.Result.Messages)
		e.Result.Messages = append(e.Result.Messages, ai.UserText("scribbled", 0))
	}
}

// noScribble fails when any of the texts shows a subscriber's scribbles.
func noScribble(t *testing.T, where string, ms []ai.Message) {
	t.Helper()
	for _, m := range ms {
		if strings.Contains(m.Text(), "scribbled") || m.ErrorMessage == "scribbled" || slices.ContainsFunc(m.Content, func(c ai.Content) bool {
			return c.Text == "scribbled" || strings.Contains(string(c.Arguments), "~")
		}) {
			t.Fatalf("%s shows a subscriber's changes: %q", where, texts(ms))
		}
	}
}
