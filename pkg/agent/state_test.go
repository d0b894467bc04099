package agent

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"gopi/pkg/ai"
	"gopi/pkg/ai/faux"
	"gopi/pkg/loop"
	"gopi/pkg/tools/toolstest"
)

// What each event does to the state of the current run, one event at a
// time from the same state: streaming text restarts with a new message,
// a new attempt and a finished message, and grows only with text deltas;
// a tool end removes only its own call; only a failed turn records its
// error; run_end settles the run; agent_start opens the next one, keeping
// the transcript, the last reason and the diagnostics.
func TestReduceEachEvent(t *testing.T) {
	t.Parallel()
	base := State{Status: Running, RunID: 1, Messages: []ai.Message{ai.UserText("q", 1)}, LastReason: loop.ReasonStop,
		StreamingText: "partial", PendingToolCalls: []string{"a"}, ErrorMessage: "old error", Diagnostics: []string{"d"}}
	answer := ai.Message{Role: ai.RoleAssistant, Content: []ai.Content{ai.TextContent("done")}, StopReason: ai.StopStop}
	failed := ai.Message{Role: ai.RoleAssistant, Content: []ai.Content{}, StopReason: ai.StopError, ErrorMessage: "boom"}
	ev := func(e loop.Event) Event { return Event{RunID: 1, Event: e} }
	cases := []struct {
		name string
		e    Event
		want string
	}{
		{"message_start", ev(loop.Event{Type: loop.MessageStart, Message: &answer}),
			`[running run1 ["q"] pending=[a] last=stop error="old error"]`},
		{"stream start", ev(loop.Event{Type: loop.MessageUpdate, Stream: &ai.Event{Type: ai.EventStart}}),
			`[running run1 ["q"] pending=[a] last=stop error="old error"]`},
		{"text delta", ev(loop.Event{Type: loop.MessageUpdate, Stream: &ai.Event{Type: ai.EventTextDelta, Delta: " more"}}),
			`[running run1 ["q"] streaming="partial more" pending=[a] last=stop error="old error"]`},
		{"thinking delta", ev(loop.Event{Type: loop.MessageUpdate, Stream: &ai.Event{Type: ai.EventThinkingDelta, Delta: "hmm"}}),
			`[running run1 ["q"] streaming="partial" pending=[a] last=stop error="old error"]`},
		{"update without stream", ev(loop.Event{Type: loop.MessageUpdate}),
			`[running run1 ["q"] streaming="partial" pending=[a] last=stop error="old error"]`},
		{"retry", ev(loop.Event{Type: loop.RetryStart, Retry: &ai.RetryInfo{}}),
			`[running run1 ["q"] pending=[a] last=stop error="old error"]`},
		{"message_end", ev(loop.Event{Type: loop.MessageEnd, Message: &answer}),
			`[running run1 ["q" "done"] pending=[a] last=stop error="old error"]`},
		{"tool start", ev(loop.Event{Type: loop.ToolStart, ToolCallID: "b"}),
			`[running run1 ["q"] streaming="partial" pending=[a b] last=stop error="old error"]`},
		{"another tool's end", ev(loop.Event{Type: loop.ToolEnd, ToolCallID: "b"}),
			`[running run1 ["q"] streaming="partial" pending=[a] last=stop error="old error"]`},
		{"tool end", ev(loop.Event{Type: loop.ToolEnd, ToolCallID: "a"}),
			`[running run1 ["q"] streaming="partial" last=stop error="old error"]`},
		{"turn_end of an answer", ev(loop.Event{Type: loop.TurnEnd, Message: &answer}),
			`[running run1 ["q"] streaming="partial" pending=[a] last=stop error="old error"]`},
		{"turn_end without message", ev(loop.Event{Type: loop.TurnEnd}),
			`[running run1 ["q"] streaming="partial" pending=[a] last=stop error="old error"]`},
		{"failed turn_end", ev(loop.Event{Type: loop.TurnEnd, Message: &failed}),
			`[running run1 ["q"] streaming="partial" pending=[a] last=stop error="boom"]`},
		{"run_end without result", ev(loop.Event{Type: RunEnd}),
			`[idle run1 ["q"] last=stop error="old error"]`},
		{"run_end", Event{RunID: 1, Event: loop.Event{Type: RunEnd}, Result: &loop.Result{Reason: loop.ReasonAborted, Messages: []ai.Message{ai.UserText("q", 1)}}},
			`[idle run1 ["q"] last=aborted error="old error"]`},
		{"agent_start", Event{RunID: 2, Event: loop.Event{Type: loop.AgentStart}},
			`[running run2 ["q"] last=stop]`},
		{"another run's event", Event{RunID: 2, Event: loop.Event{Type: loop.MessageStart}},
			`[running run1 ["q"] streaming="partial" pending=[a] last=stop error="old error"]`},
	}
	for _, c := range cases {
		s := Reduce(base.Clone(), c.e)
		if got := stateTag(s); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
		if !slices.Equal(s.Diagnostics, []string{"d"}) {
			t.Errorf("%s: diagnostics %q", c.name, s.Diagnostics)
		}
	}
}

// Event.Clone and State.Clone are deep: changing everything a clone
// reaches leaves the original as it was (an event without a result
// clones without one).
func TestClonesAreDeep(t *testing.T) {
	t.Parallel()
	msg := ai.UserText("message", 1)
	orig := Event{RunID: 1, Event: loop.Event{Type: RunEnd, Message: &msg, Messages: []ai.Message{ai.UserText("messages", 1)},
		ToolResults: []ai.Message{ai.UserText("results", 1)}},
		Result: &loop.Result{Reason: loop.ReasonStop, Messages: []ai.Message{ai.UserText("result", 1)}},
		Unsent: []ai.Message{ai.UserText("unsent", 1)}}
	before := describe(orig)
	c := orig.Clone()
	if describe(c) != before {
		t.Fatalf("clone %s, original %s", describe(c), before)
	}
	scribble(c)
	if got := describe(orig); got != before {
		t.Fatalf("changing the clone changed the event: %s", got)
	}
	if plain := (Event{RunID: 2, Event: loop.Event{Type: loop.AgentStart}}).Clone(); plain.Result != nil || plain.Unsent != nil || describe(plain) != "run2 agent_start" {
		t.Fatalf("clone of a bare event: %s", describe(plain))
	}

	s := State{Messages: []ai.Message{ai.UserText("m", 1)}, PendingToolCalls: []string{"c1"}, Diagnostics: []string{"d"}}
	sc := s.Clone()
	sc.Messages[0].Content[0].Text, sc.PendingToolCalls[0], sc.Diagnostics[0] = "x", "x", "x"
	if s.Messages[0].Text() != "m" || s.PendingToolCalls[0] != "c1" || s.Diagnostics[0] != "d" {
		t.Fatalf("changing a clone changed the state: %+v", s)
	}
}

// Configure is another exit: the options it shows hold no transcript
// (not even one handed over with OwnMessages), so changing them changes
// neither the transcript nor what a later Configure sees. The queue modes
// it shows are the defaults the Agent applies.
func TestConfigureShowsNoTranscript(t *testing.T) {
	t.Parallel()
	msgs := []ai.Message{ai.UserText("earlier", 1), {Role: ai.RoleAssistant, Content: []ai.Content{ai.TextContent("noted")}, StopReason: ai.StopStop}}
	m := faux.New(faux.Text("answer"))
	a := New(Options{Model: m, Messages: msgs, OwnMessages: true})
	var seen []Options
	a.Configure(func(o *Options) {
		seen = append(seen, *o)
		for i := range o.Messages {
			o.Messages[i].Content[0].Text = "changed in Configure"
		}
		o.Messages = []ai.Message{ai.UserText("injected", 1)}
	})
	a.Configure(func(o *Options) { seen = append(seen, *o) })
	for i, o := range seen {
		if o.Messages != nil || o.SteeringMode != OneAtATime || o.FollowUpMode != OneAtATime || o.Now == nil {
			t.Fatalf("Configure %d saw messages %q, modes %q %q", i+1, texts(o.Messages), o.SteeringMode, o.FollowUpMode)
		}
	}
	if got := promptWithin(t, a, "q"); got.err != nil {
		t.Fatal(got.err)
	}
	if got := texts(m.Requests()[0].Messages); !slices.Equal(got, []string{"earlier", "noted", "q"}) {
		t.Fatalf("request %q", got)
	}
}

// The clock given in Options stamps the messages the Agent and the loop
// make: text prompts, steering and follow-up text, tool results.
func TestInjectedClockStampsMessages(t *testing.T) {
	t.Parallel()
	now := time.UnixMilli(1_700_000_000_123)
	m := faux.New(callResp(call("c1", "w", `{"ms":1}`)), faux.Text("one"), faux.Text("two"), faux.Text("three"))
	a := New(Options{Model: m, Tools: toolstest.Registry(t, waitTool("w")), Now: func() time.Time { return now }})
	a.Subscribe(func(e Event) {
		if e.Type == loop.ToolStart {
			if a.SteerText("steer") != nil || a.FollowUpText("follow") != nil {
				t.Error("input refused")
			}
		}
	})
	got := promptWithin(t, a, "go")
	if got.err != nil {
		t.Fatal(got.err)
	}
	stamped := 0
	for _, msg := range got.res.New() {
		if msg.Role == ai.RoleAssistant {
			continue
		}
		if msg.Timestamp != now.UnixMilli() {
			t.Fatalf("%s %q stamped %d, want %d", msg.Role, msg.Text(), msg.Timestamp, now.UnixMilli())
		}
		stamped++
	}
	if stamped != 4 { // the prompt, the tool result, the steering, the follow-up
		t.Fatalf("%d messages stamped: %s", stamped, roles(got.res.New()))
	}
}

// Each run has its own context: live while the run asks the model, done
// once the run has returned (what a model or tool left running is told
// to stop), and never the previous run's.
func TestEachRunHasItsOwnContextEndedWithTheRun(t *testing.T) {
	t.Parallel()
	cm := &ctxModel{inner: faux.New(faux.Text("one"), faux.Text("two"))}
	var mu sync.Mutex
	var liveAtRequest []error
	a := New(Options{Model: cm})
	a.Subscribe(func(e Event) {
		if e.Type == loop.MessageStart && e.Message.Role == ai.RoleAssistant {
			cm.mu.Lock()
			ctx := cm.ctxs[len(cm.ctxs)-1]
			cm.mu.Unlock()
			mu.Lock()
			liveAtRequest = append(liveAtRequest, ctx.Err())
			mu.Unlock()
		}
	})
	for _, q := range []string{"q1", "q2"} {
		if got := promptWithin(t, a, q); got.err != nil || got.res.Reason != loop.ReasonStop {
			t.Fatalf("%s: %v %s", q, got.err, got.res.Reason)
		}
	}
	if len(cm.ctxs) != 2 || cm.ctxs[0] == cm.ctxs[1] {
		t.Fatalf("contexts %v", cm.ctxs)
	}
	for i, ctx := range cm.ctxs {
		if !errors.Is(ctx.Err(), context.Canceled) || liveAtRequest[i] != nil {
			t.Fatalf("run %d: context %v after the run, %v during it", i+1, ctx.Err(), liveAtRequest[i])
		}
	}
}

// WaitForIdle: an idle Agent is idle whatever the context (also one that
// has ended); while run_end is still being delivered the Agent is not
// idle yet, so a context that ends first is reported.
func TestWaitForIdleReportsIdleOnlyAfterRunEnd(t *testing.T) {
	t.Parallel()
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	a := New(Options{Model: faux.New(faux.Text("one"))})
	if err := within(t, "WaitForIdle", func() error { return a.WaitForIdle(ended) }); err != nil {
		t.Fatalf("before any run: %v", err)
	}
	var during []error
	a.Subscribe(func(e Event) {
		if e.Type == loop.AgentStart || e.Type == loop.AgentEnd || e.Type == RunEnd {
			during = append(during, a.WaitForIdle(ended))
		}
	})
	if got := promptWithin(t, a, "q"); got.err != nil {
		t.Fatal(got.err)
	}
	if len(during) != 3 || !all(during, func(err error) bool { return errors.Is(err, context.Canceled) }) {
		t.Fatalf("WaitForIdle during the run: %v", during)
	}
	for range 20 { // were it a coin toss between idle and the ended context, this would lose
		if err := within(t, "WaitForIdle", func() error { return a.WaitForIdle(ended) }); err != nil {
			t.Fatalf("after the run: %v", err)
		}
	}
}

func all[T any](xs []T, f func(T) bool) bool {
	return !slices.ContainsFunc(xs, func(x T) bool { return !f(x) })
}
