package agent

import (
	"context"
	"iter"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"gopi/pkg/ai"
	"gopi/pkg/ai/faux"
	"gopi/pkg/loop"
	"gopi/pkg/tools/toolstest"
)

// The events of one run, in order, with their payloads, and the state a
// subscriber reads while it handles each (the event is already reduced
// into it): every subscriber sees the same. The state before the run
// already holds the initial transcript.
func TestEventOrderPayloadsAndStateOfARun(t *testing.T) {
	t.Parallel()
	m := faux.New(callResp(call("c1", "w", `{"ms":1}`)), faux.Response{Text: "done", ChunkSize: 2})
	a := New(Options{Model: m, Tools: toolstest.Registry(t, waitTool("w")),
		Messages: []ai.Message{ai.UserText("earlier", 1), {Role: ai.RoleAssistant, Content: []ai.Content{ai.TextContent("noted")}, StopReason: ai.StopStop}}})
	if got := stateTag(a.State()); got != `[idle run0 ["earlier" "noted"]]` {
		t.Fatalf("state before any run: %s", got)
	}
	logs := make([][]string, 2)
	for i := range logs {
		a.Subscribe(func(e Event) { logs[i] = append(logs[i], describe(e)+" "+stateTag(a.State())) })
	}
	got := promptWithin(t, a, "go")
	if got.err != nil {
		t.Fatal(got.err)
	}
	h := `"earlier" "noted"`
	want := []string{
		`run1 agent_start [running run1 [` + h + `]]`,
		`run1 turn_start [running run1 [` + h + `]]`,
		`run1 message_start user:"go" [running run1 [` + h + `]]`,
		`run1 message_end user:"go" [running run1 [` + h + ` "go"]]`,
		`run1 message_start assistant:"" [running run1 [` + h + ` "go"]]`,
		`run1 message_update toolcall_start:"" [running run1 [` + h + ` "go"]]`,
		`run1 message_update toolcall_delta:"{\"ms\":1}" [running run1 [` + h + ` "go"]]`,
		`run1 message_update toolcall_end:"" [running run1 [` + h + ` "go"]]`,
		`run1 message_end assistant:""/toolUse [running run1 [` + h + ` "go" ""]]`,
		`run1 tool_execution_start c1(w){"ms":1} [running run1 [` + h + ` "go" ""] pending=[c1]]`,
		`run1 tool_execution_end c1(w) out="w done" [running run1 [` + h + ` "go" ""]]`,
		`run1 message_start toolResult:"w done" [running run1 [` + h + ` "go" ""]]`,
		`run1 message_end toolResult:"w done" [running run1 [` + h + ` "go" "" "w done"]]`,
		`run1 turn_end assistant:""/toolUse results=["w done"] [running run1 [` + h + ` "go" "" "w done"]]`,
		`run1 turn_start [running run1 [` + h + ` "go" "" "w done"]]`,
		`run1 message_start assistant:"" [running run1 [` + h + ` "go" "" "w done"]]`,
		`run1 message_update text_start:"" [running run1 [` + h + ` "go" "" "w done"]]`,
		`run1 message_update text_delta:"do" [running run1 [` + h + ` "go" "" "w done"] streaming="do"]`,
		`run1 message_update text_delta:"ne" [running run1 [` + h + ` "go" "" "w done"] streaming="done"]`,
		`run1 message_update text_end:"" [running run1 [` + h + ` "go" "" "w done"] streaming="done"]`,
		`run1 message_end assistant:"done"/stop [running run1 [` + h + ` "go" "" "w done" "done"]]`,
		`run1 turn_end assistant:"done"/stop [running run1 [` + h + ` "go" "" "w done" "done"]]`,
		`run1 agent_end messages=["go" "" "w done" "done"] [running run1 [` + h + ` "go" "" "w done" "done"]]`,
		`run1 run_end result=stop start=2 steps=2 [` + h + ` "go" "" "w done" "done"] [idle run1 [` + h + ` "go" "" "w done" "done"] last=stop]`,
	}
	for i, log := range logs {
		if !slices.Equal(log, want) {
			t.Fatalf("subscriber %d saw:\n%s\nwant:\n%s", i+1, strings.Join(log, "\n"), strings.Join(want, "\n"))
		}
	}
}

// An event emitted from inside a subscriber (here: run 2, started from
// run 1's run_end and run to its end before the subscriber returns) waits
// until the current event has reached every subscriber: both see run 1's
// run_end before run 2's agent_start, each event with the state reduced up
// to that event and no further.
func TestEventsEmittedInsideASubscriberWaitTheirTurn(t *testing.T) {
	t.Parallel()
	m := faux.New(faux.Text("one"), faux.Text("two"))
	a := New(Options{Model: m})
	var logA, logB []string
	var nested outcome
	var bWhenNestedReturned []string
	a.Subscribe(func(e Event) {
		logA = append(logA, describe(e)+" "+stateTag(a.State()))
		if e.Type == RunEnd && e.RunID == 1 {
			nested.res, nested.err = a.PromptText(context.Background(), "second")
			bWhenNestedReturned = slices.Clone(logB)
		}
	})
	a.Subscribe(func(e Event) { logB = append(logB, describe(e)+" "+stateTag(a.State())) })
	first := promptWithin(t, a, "first")
	if first.err != nil || nested.err != nil || !slices.Equal(texts(nested.res.Messages), []string{"first", "one", "second", "two"}) {
		t.Fatalf("runs: %v, %v %q", first.err, nested.err, texts(nested.res.Messages))
	}
	one := `"first" "one"`
	want := []string{
		`run1 agent_start [running run1 []]`,
		`run1 turn_start [running run1 []]`,
		`run1 message_start user:"first" [running run1 []]`,
		`run1 message_end user:"first" [running run1 ["first"]]`,
		`run1 message_start assistant:"" [running run1 ["first"]]`,
		`run1 message_update text_start:"" [running run1 ["first"]]`,
		`run1 message_update text_delta:"one" [running run1 ["first"] streaming="one"]`,
		`run1 message_update text_end:"" [running run1 ["first"] streaming="one"]`,
		`run1 message_end assistant:"one"/stop [running run1 [` + one + `]]`,
		`run1 turn_end assistant:"one"/stop [running run1 [` + one + `]]`,
		`run1 agent_end messages=[` + one + `] [running run1 [` + one + `]]`,
		`run1 run_end result=stop start=0 steps=1 [` + one + `] [idle run1 [` + one + `] last=stop]`,
		`run2 agent_start [running run2 [` + one + `] last=stop]`,
		`run2 turn_start [running run2 [` + one + `] last=stop]`,
		`run2 message_start user:"second" [running run2 [` + one + `] last=stop]`,
		`run2 message_end user:"second" [running run2 [` + one + ` "second"] last=stop]`,
		`run2 message_start assistant:"" [running run2 [` + one + ` "second"] last=stop]`,
		`run2 message_update text_start:"" [running run2 [` + one + ` "second"] last=stop]`,
		`run2 message_update text_delta:"two" [running run2 [` + one + ` "second"] streaming="two" last=stop]`,
		`run2 message_update text_end:"" [running run2 [` + one + ` "second"] streaming="two" last=stop]`,
		`run2 message_end assistant:"two"/stop [running run2 [` + one + ` "second" "two"] last=stop]`,
		`run2 turn_end assistant:"two"/stop [running run2 [` + one + ` "second" "two"] last=stop]`,
		`run2 agent_end messages=["second" "two"] [running run2 [` + one + ` "second" "two"] last=stop]`,
		`run2 run_end result=stop start=2 steps=1 [` + one + ` "second" "two"] [idle run2 [` + one + ` "second" "two"] last=stop]`,
	}
	for name, log := range map[string][]string{"A": logA, "B": logB} {
		if !slices.Equal(log, want) {
			t.Fatalf("subscriber %s saw:\n%s\nwant:\n%s", name, strings.Join(log, "\n"), strings.Join(want, "\n"))
		}
	}
	// Run 2's request was built from the transcript, not from the state,
	// which had not yet seen run 2's prompt (its events were queued).
	if got := texts(m.Requests()[1].Messages); !slices.Equal(got, []string{"first", "one", "second"}) {
		t.Fatalf("run 2's request %q", got)
	}
	// Run 2 was over when its Prompt returned, yet B had not even seen run
	// 1's run_end: the nested events were all waiting in the queue.
	if !slices.Equal(bWhenNestedReturned, want[:11]) {
		t.Fatalf("when the nested Prompt returned, B had seen:\n%s", strings.Join(bWhenNestedReturned, "\n"))
	}
}

// gatedModel tells asked when a request arrives and answers it once
// release is closed (or the request's context ends).
type gatedModel struct {
	inner   ai.Model
	asked   chan struct{}
	release chan struct{}
}

func (m *gatedModel) Stream(ctx context.Context, req *ai.Request) iter.Seq[ai.Event] {
	m.asked <- struct{}{}
	select {
	case <-m.release:
	case <-ctx.Done():
	}
	return m.inner.Stream(ctx, req)
}

// Events another goroutine emits while a subscriber is handling an event
// wait in the same FIFO: run 2, started on its own goroutine from run 1's
// run_end, has emitted its first events (it is already asking the model)
// before the subscriber returns, and still no subscriber sees them before
// every subscriber has seen run 1's run_end.
func TestEventsFromAnotherGoroutineWaitTheirTurn(t *testing.T) {
	t.Parallel()
	gm := &gatedModel{inner: faux.New(faux.Text("two")), asked: make(chan struct{}, 1), release: make(chan struct{})}
	a := New(Options{Model: faux.New(faux.Text("one"))})
	logA, logB := &eventLog{}, &eventLog{}
	run2 := make(chan outcome, 1)
	var bBeforeRelease []string
	a.Subscribe(func(e Event) {
		logA.add(e)
		if e.Type != RunEnd || e.RunID != 1 {
			return
		}
		a.Configure(func(o *Options) { o.Model = gm })
		go func() {
			res, err := a.PromptText(context.Background(), "second")
			run2 <- outcome{res, err}
		}()
		select {
		case <-gm.asked:
		case <-time.After(failsafe):
			t.Error("run 2 never asked its model")
		}
		bBeforeRelease = logB.list()
		close(gm.release)
	})
	a.Subscribe(logB.add)
	if got := promptWithin(t, a, "first"); got.err != nil {
		t.Fatal(got.err)
	}
	second := wait(t, "run 2", run2)
	if second.err != nil || !slices.Equal(texts(second.res.New()), []string{"second", "two"}) {
		t.Fatalf("run 2: %v %q", second.err, texts(second.res.New()))
	}
	if err := within(t, "WaitForIdle", func() error { return a.WaitForIdle(context.Background()) }); err != nil {
		t.Fatal(err)
	}
	wantA := logA.list()
	if len(wantA) != 24 || wantA[11] != "run1:run_end" || wantA[12] != "run2:agent_start" {
		t.Fatalf("subscriber A saw %v", wantA)
	}
	if !slices.Equal(logB.list(), wantA) {
		t.Fatalf("subscribers saw different orders:\nA %v\nB %v", wantA, logB.list())
	}
	if !slices.Equal(bBeforeRelease, wantA[:11]) {
		t.Fatalf("B saw %v while A handled run 1's run_end", bBeforeRelease)
	}
}

// Every subscriber gets its own deep copy of every event, whether the
// event was delivered at once or waited in the queue, and whatever
// position the subscriber has: what one changes reaches neither another
// subscriber, nor the state, the transcript, a result, nor a later model
// request.
func TestEverySubscriberGetsItsOwnCopy(t *testing.T) {
	t.Parallel()
	m := faux.New(callResp(call("c1", "w", `{"ms":1}`)), faux.Text("one"), faux.Text("two"))
	a := New(Options{Model: m, Tools: toolstest.Registry(t, waitTool("w"))})
	var nested outcome
	var seenB, seenD, seenEvents []string
	a.Subscribe(func(e Event) {
		scribble(e)
		if e.Type == RunEnd && e.RunID == 1 {
			nested.res, nested.err = a.PromptText(context.Background(), "second")
			scribble(Event{Result: &nested.res})
		}
	})
	a.SubscribeEvents(func(runID int, e loop.Event) {
		seenEvents = append(seenEvents, describe(Event{RunID: runID, Event: e}))
		scribble(Event{Event: e})
	})
	// B and D each record what they got, then change it; D is the last.
	for _, seen := range []*[]string{&seenB, &seenD} {
		a.Subscribe(func(e Event) {
			*seen = append(*seen, describe(e))
			scribble(e)
		})
	}
	first := promptWithin(t, a, "first")
	if first.err != nil || nested.err != nil {
		t.Fatal(first.err, nested.err)
	}
	if len(seenB) != 35 || len(seenEvents) != len(seenB) || !slices.Equal(seenB, seenD) {
		t.Fatalf("B saw %d events, the loop-event subscriber %d; D saw different ones:\n%s\n%s",
			len(seenB), len(seenEvents), strings.Join(seenB, "\n"), strings.Join(seenD, "\n"))
	}
	for i, d := range seenB {
		if strings.Contains(d, "scribbled") || strings.Contains(d, "~") {
			t.Fatalf("B's event %d shows another subscriber's changes: %s", i, d)
		}
		if ev := seenEvents[i]; strings.Contains(ev, "scribbled") || strings.Contains(ev, "~") || !strings.HasPrefix(d, ev) {
			t.Fatalf("loop-event subscriber's event %d: %s (B saw %s)", i, ev, d)
		}
	}
	if last := seenB[len(seenB)-1]; !strings.HasPrefix(last, `run2 run_end result=stop start=4 steps=1 ["first" "" "w done" "one" "second" "two"]`) {
		t.Fatalf("last event %s", last)
	}
	want := []string{"first", "", "w done", "one", "second", "two"}
	noScribble(t, "the transcript", a.Messages())
	noScribble(t, "the state", a.State().Messages)
	noScribble(t, "run 1's result", first.res.Messages)
	for i, req := range m.Requests() {
		noScribble(t, "a model request", req.Messages)
		if got := texts(req.Messages); !slices.Equal(got, want[:len(got)]) || i == 3 && len(got) != 5 || i > 3 {
			t.Fatalf("request %d: %q", i, got)
		}
	}
	if got := texts(a.Messages()); !slices.Equal(got, want) {
		t.Fatalf("transcript %q", got)
	}
	if got := a.Messages()[1].ToolCalls(); len(got) != 1 || string(got[0].Arguments) != `{"ms":1}` {
		t.Fatalf("tool call %+v", got)
	}
}

// The subscribers an event reaches are those registered when it is
// delivered: a subscriber added or removed while an event is being
// delivered takes effect from the next event on; the one removed still
// gets the current event.
func TestSubscribersChangedDuringDeliveryTakeEffectAtTheNextEvent(t *testing.T) {
	t.Parallel()
	a := New(Options{Model: faux.New(faux.Text("one"))})
	var logB, logC []string
	var unsubB func()
	var mu sync.Mutex
	a.Subscribe(func(e Event) {
		if e.Type == loop.MessageStart && e.Message.Role == ai.RoleUser {
			unsubB()
			a.Subscribe(func(e Event) {
				mu.Lock()
				logC = append(logC, string(e.Type))
				mu.Unlock()
			})
		}
	})
	unsubB = a.Subscribe(func(e Event) { logB = append(logB, string(e.Type)) })
	if got := promptWithin(t, a, "go"); got.err != nil {
		t.Fatal(got.err)
	}
	if want := []string{"agent_start", "turn_start", "message_start"}; !slices.Equal(logB, want) {
		t.Fatalf("removed subscriber saw %v, want %v", logB, want)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(logC) == 0 || logC[0] != "message_end" || logC[len(logC)-1] != "run_end" || len(logC) != 9 {
		t.Fatalf("added subscriber saw %v", logC)
	}
}

// A subscriber that panics is named in the diagnostics by its number and
// the event; the others, before and after it, get every event; a filter
// that panics refuses the event and is recorded the same way.
func TestSubscriberPanicsAreRecordedAndIsolated(t *testing.T) {
	t.Parallel()
	a := New(Options{Model: faux.New(faux.Text("one"))})
	var before, after []string
	a.Subscribe(func(e Event) { before = append(before, string(e.Type)) })
	a.Subscribe(func(e Event) {
		if e.Type == loop.AgentStart || e.Type == RunEnd {
			panic("bad subscriber")
		}
	})
	a.Subscribe(func(Event) {}, func(t loop.EventType) bool {
		if t == loop.TurnStart {
			panic("bad filter")
		}
		return false
	})
	a.Subscribe(func(e Event) { after = append(after, string(e.Type)) })
	if got := promptWithin(t, a, "go"); got.err != nil || got.res.Reason != loop.ReasonStop {
		t.Fatalf("run: %v %s", got.err, got.res.Reason)
	}
	want := []string{
		"subscriber 2 panicked on agent_start: bad subscriber",
		"subscriber 3's filter panicked on turn_start: bad filter",
		"subscriber 2 panicked on run_end: bad subscriber",
	}
	st := a.State()
	if !slices.Equal(st.Diagnostics, want) {
		t.Fatalf("diagnostics %q, want %q", st.Diagnostics, want)
	}
	if len(before) != 12 || !slices.Equal(before, after) {
		t.Fatalf("before %v, after %v", before, after)
	}
	st.Diagnostics[0] = "changed by the caller"
	if got := a.State().Diagnostics[0]; got != want[0] {
		t.Fatalf("State shares its diagnostics: %q", got)
	}
	// A second run keeps the diagnostics of the first.
	if got := promptWithin(t, a, "again"); got.err != nil {
		t.Fatal(got.err)
	}
	if got := a.State().Diagnostics; len(got) != 6 || !slices.Equal(got[:3], want) || !slices.Equal(got[3:], want) {
		t.Fatalf("diagnostics after run 2: %q", got)
	}
}

// Filters choose per subscriber, whatever the order of the subscribers
// that pass and refuse: the first refusing and a later one wanting, or
// the other way round; an event nobody wants is still reduced.
func TestFiltersChoosePerSubscriberInAnyOrder(t *testing.T) {
	t.Parallel()
	a := New(Options{Model: faux.New(faux.Text("one"))})
	logs := make([][]string, 4)
	filters := []Filter{Only(loop.AgentStart), Except(loop.AgentStart), Only(loop.AgentStart, RunEnd), Only(loop.TurnEnd)}
	for i, f := range filters {
		a.Subscribe(func(e Event) { logs[i] = append(logs[i], string(e.Type)) }, f)
	}
	var streamed []string
	a.Subscribe(func(e Event) {
		if e.Type == loop.MessageEnd {
			streamed = append(streamed, a.State().StreamingText)
		}
	}, Only(loop.MessageEnd))
	if got := promptWithin(t, a, "go"); got.err != nil {
		t.Fatal(got.err)
	}
	all := []string{"agent_start", "turn_start", "message_start", "message_end", "message_start", "message_update",
		"message_update", "message_update", "message_end", "turn_end", "agent_end", "run_end"}
	want := [][]string{{"agent_start"}, all[1:], {"agent_start", "run_end"}, {"turn_end"}}
	for i := range logs {
		if !slices.Equal(logs[i], want[i]) {
			t.Fatalf("subscriber %d saw %v, want %v", i+1, logs[i], want[i])
		}
	}
	if !slices.Equal(streamed, []string{"", ""}) || a.State().Status != Idle {
		t.Fatalf("streaming text at message_end %q", streamed)
	}
}

// Subscribers are called in the order they subscribed, for every event;
// one removed leaves the others' order as it was, one added comes last.
func TestSubscribersRunInRegistrationOrder(t *testing.T) {
	t.Parallel()
	a := New(Options{Model: faux.New(faux.Text("one"), faux.Text("two"))})
	var log []string
	sub := func(name string) func() {
		return a.Subscribe(func(e Event) { log = append(log, name+":"+string(e.Type)) })
	}
	sub("1")
	unsub2 := sub("2")
	sub("3")
	check := func(names ...string) {
		t.Helper()
		if len(log) != 12*len(names) {
			t.Fatalf("%d calls for %d subscribers: %v", len(log), len(names), log)
		}
		for i, entry := range log {
			if name, _, _ := strings.Cut(entry, ":"); name != names[i%len(names)] {
				t.Fatalf("call %d went to subscriber %s, want the order %v: %v", i, name, names, log)
			}
		}
		log = nil
	}
	if got := promptWithin(t, a, "q1"); got.err != nil {
		t.Fatal(got.err)
	}
	check("1", "2", "3")
	unsub2()
	sub("4")
	if got := promptWithin(t, a, "q2"); got.err != nil {
		t.Fatal(got.err)
	}
	check("1", "3", "4")
}

// Only and Except keep their own list of types: the caller reusing the
// slice it passed changes neither filter.
func TestFiltersKeepTheirTypes(t *testing.T) {
	t.Parallel()
	types := []loop.EventType{loop.AgentStart}
	only, except := Only(types...), Except(types...)
	types[0] = loop.AgentEnd
	if !only(loop.AgentStart) || only(loop.AgentEnd) || except(loop.AgentStart) || !except(loop.AgentEnd) {
		t.Fatal("a filter follows the caller's slice")
	}
}
