package agent

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/ai/faux"
	"gopi/pkg/loop"
)

// A refused Continue changes nothing and leaves the Agent usable: the
// same call again is refused the same way (it does not wait for a lock the
// refusal kept), a Prompt after it runs, and the refusals used no run id
// and reached no subscriber.
func TestRefusedContinueLeavesTheAgentUsable(t *testing.T) {
	t.Parallel()
	m := faux.New(faux.Text("first answer"), faux.Text("second answer"))
	a := New(Options{Model: m})
	var seen []string
	a.Subscribe(func(e Event) {
		if e.Type == loop.AgentStart || e.Type == RunEnd {
			seen = append(seen, runTag(e))
		}
	})
	for i := range 2 {
		got := continueWithin(t, a)
		if !errors.Is(got.err, ErrNothingToContinue) || got.err.Error() != ErrNothingToContinue.Error() {
			t.Fatalf("Continue %d on an empty transcript: %v", i+1, got.err)
		}
		if got.res.Reason != "" || got.res.Messages != nil {
			t.Fatalf("a refused Continue returned a result: %+v", got.res)
		}
	}
	if st := a.State(); st.Status != Idle || st.RunID != 0 || len(st.Messages) != 0 || len(seen) != 0 {
		t.Fatalf("after refusals: state %s, events %v", stateTag(st), seen)
	}

	first := promptWithin(t, a, "question")
	if first.err != nil || first.res.Reason != loop.ReasonStop || !slices.Equal(texts(first.res.Messages), []string{"question", "first answer"}) {
		t.Fatalf("Prompt after refused Continues: %v %s %q", first.err, first.res.Reason, texts(first.res.Messages))
	}

	// The transcript now ends with the assistant's answer: refused again,
	// with the reason, and again the next call works.
	for i := range 2 {
		got := continueWithin(t, a)
		if !errors.Is(got.err, ErrNothingToContinue) || !strings.Contains(got.err.Error(), "the last message is the assistant's") {
			t.Fatalf("Continue %d after an answer: %v", i+1, got.err)
		}
	}
	second := promptWithin(t, a, "again")
	if second.err != nil || second.res.Start != 2 || !slices.Equal(texts(second.res.New()), []string{"again", "second answer"}) {
		t.Fatalf("Prompt after refused Continues: %v start %d %q", second.err, second.res.Start, texts(second.res.New()))
	}
	if want := []string{"run1:agent_start", "run1:run_end", "run2:agent_start", "run2:run_end"}; !slices.Equal(seen, want) {
		t.Fatalf("events %v, want %v", seen, want)
	}
	if got := texts(m.Requests()[1].Messages); !slices.Equal(got, []string{"question", "first answer", "again"}) {
		t.Fatalf("second request %q", got)
	}
}

// Continue answers a transcript that ends with a user message or a tool
// result, appending to it; it adds no prompt of its own.
func TestContinueAnswersThePendingMessage(t *testing.T) {
	t.Parallel()
	m := faux.New(faux.Text("answer"))
	a := New(Options{Model: m, Messages: []ai.Message{ai.UserText("pending", 1)}})
	got := continueWithin(t, a)
	if got.err != nil || got.res.Reason != loop.ReasonStop || got.res.Start != 1 || !slices.Equal(texts(got.res.Messages), []string{"pending", "answer"}) {
		t.Fatalf("continue: %v %s start %d %q", got.err, got.res.Reason, got.res.Start, texts(got.res.Messages))
	}
	if reqs := m.Requests(); len(reqs) != 1 || !slices.Equal(texts(reqs[0].Messages), []string{"pending"}) {
		t.Fatalf("requests %d", len(reqs))
	}
	if st := a.State(); st.RunID != 1 || !slices.Equal(texts(st.Messages), []string{"pending", "answer"}) {
		t.Fatalf("state %s", stateTag(st))
	}
}

// Prompt and Continue during a run are refused with ErrBusy before
// anything else is looked at (Continue on an empty transcript is busy,
// not "nothing to continue"); the refusal leaves the run going (it still
// takes input and ends normally), emits nothing, uses no run id, and the
// next Prompt after the run works.
func TestBusyRefusalLeavesTheRunAndTheAgentUsable(t *testing.T) {
	t.Parallel()
	m := faux.New(faux.Text("one"), faux.Text("two"))
	a := New(Options{Model: m})
	var refusals []error
	var steerErr error
	var seen []string
	a.Subscribe(func(e Event) {
		seen = append(seen, runTag(e))
		if e.Type != loop.AgentStart || e.RunID != 1 {
			return
		}
		_, err := a.PromptText(context.Background(), "parallel")
		refusals = append(refusals, err)
		_, err = a.Prompt(context.Background(), ai.UserText("parallel message", 1))
		refusals = append(refusals, err)
		_, err = a.Continue(context.Background())
		refusals = append(refusals, err)
		steerErr = a.SteerText("steer instead")
	})
	run1 := promptWithin(t, a, "go")
	for i, err := range refusals {
		if !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), "use steer or follow-up") {
			t.Fatalf("refusal %d: %v", i, err)
		}
	}
	if len(refusals) != 3 || steerErr != nil {
		t.Fatalf("refusals %v, steer %v", refusals, steerErr)
	}
	// Steering queued before the first request goes with it (the loop
	// looks at the queue before asking the model).
	if run1.err != nil || !slices.Equal(texts(run1.res.New()), []string{"go", "steer instead", "one"}) {
		t.Fatalf("run 1: %v %q", run1.err, texts(run1.res.New()))
	}
	if got := lifecycle(seen); !slices.Equal(got, []string{"run1:agent_start", "run1:run_end"}) {
		t.Fatalf("events %v", got)
	}
	run2 := promptWithin(t, a, "next")
	if run2.err != nil || run2.res.Start != 3 || a.State().RunID != 2 {
		t.Fatalf("run 2: %v start %d, state run %d", run2.err, run2.res.Start, a.State().RunID)
	}
	for _, req := range m.Requests() {
		if slices.ContainsFunc(req.Messages, func(m ai.Message) bool { return strings.HasPrefix(m.Text(), "parallel") }) {
			t.Fatalf("a refused prompt reached the model: %q", texts(req.Messages))
		}
	}
}

// Steer and FollowUp with no run are refused, change nothing, and the
// Agent goes on working; what they were given never reaches a later run.
func TestInputWhileIdleIsRefusedAndForgotten(t *testing.T) {
	t.Parallel()
	m := faux.New(faux.Text("answer"))
	a := New(Options{Model: m})
	for _, f := range []func() error{
		func() error { return a.SteerText("early steer") },
		func() error { return a.FollowUpText("early follow-up") },
		func() error { return a.Steer(ai.UserText("early message", 1)) },
		func() error { return a.FollowUp(ai.UserText("early message", 1)) },
	} {
		if err := within(t, "queued input while idle", f); !errors.Is(err, ErrNotRunning) {
			t.Fatalf("input while idle: %v", err)
		}
	}
	got := promptWithin(t, a, "go")
	if got.err != nil || !slices.Equal(texts(got.res.Messages), []string{"go", "answer"}) || len(got.res.Messages) != 2 {
		t.Fatalf("run: %v %q", got.err, texts(got.res.Messages))
	}
	if len(m.Requests()) != 1 {
		t.Fatalf("%d requests", len(m.Requests()))
	}
	if _, err := a.Prompt(t.Context()); !errors.Is(err, ErrEmptyPrompt) {
		t.Fatalf("empty prompt: %v", err)
	}
	if st := a.State(); st.RunID != 1 || len(st.Messages) != 2 {
		t.Fatalf("an empty prompt changed the state: %s", stateTag(st))
	}
}

// Prompt takes several messages, in order, and copies them: the caller
// changing them during the run (here from agent_start) changes neither
// the request nor the transcript.
func TestPromptCopiesItsMessages(t *testing.T) {
	t.Parallel()
	m := faux.New(faux.Text("answer"))
	a := New(Options{Model: m})
	msgs := []ai.Message{ai.UserText("part one", 1), ai.UserText("part two", 2)}
	a.Subscribe(func(e Event) {
		if e.Type == loop.AgentStart {
			msgs[0].Content[0].Text = "changed by the caller"
		}
	})
	got := within(t, "Prompt", func() outcome {
		res, err := a.Prompt(context.Background(), msgs...)
		return outcome{res, err}
	})
	want := []string{"part one", "part two", "answer"}
	if got.err != nil || !slices.Equal(texts(got.res.Messages), want) || !slices.Equal(texts(a.Messages()), want) {
		t.Fatalf("run: %v %q, transcript %q", got.err, texts(got.res.Messages), texts(a.Messages()))
	}
	if req := texts(m.Requests()[0].Messages); !slices.Equal(req, want[:2]) {
		t.Fatalf("request %q", req)
	}
}
