package agent

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"gopi/pkg/ai"
	"gopi/pkg/ai/faux"
	"gopi/pkg/loop"
	"gopi/pkg/tools/toolstest"
)

// A subscriber with filters gets only the event types every filter passes,
// in the order the others see them; the state still sees every event.
func TestSubscribeFilters(t *testing.T) {
	t.Parallel()
	a := New(Options{Model: faux.New(faux.Text("hello there"))})
	var all, only, except, both []string
	a.Subscribe(func(e Event) { all = append(all, string(e.Type)) })
	a.Subscribe(func(e Event) { only = append(only, string(e.Type)) }, Only(loop.MessageEnd, RunEnd))
	a.Subscribe(func(e Event) { except = append(except, string(e.Type)) }, Except(loop.MessageUpdate, RunEnd))
	a.Subscribe(func(e Event) { both = append(both, string(e.Type)) }, Only(loop.MessageEnd, RunEnd), Except(RunEnd))
	mustPrompt(t, a, "hi")
	keep := func(f func(string) bool) []string {
		var out []string
		for _, t := range all {
			if f(t) {
				out = append(out, t)
			}
		}
		return out
	}
	if want := keep(func(t string) bool { return t == "message_end" || t == "run_end" }); !slices.Equal(only, want) || len(only) != 3 {
		t.Fatalf("Only got %v, want %v", only, want)
	}
	if want := keep(func(t string) bool { return t != "message_update" && t != "run_end" }); !slices.Equal(except, want) || slices.Contains(all, "message_update") == false {
		t.Fatalf("Except got %v, want %v (all %v)", except, want, all)
	}
	if want := []string{"message_end", "message_end"}; !slices.Equal(both, want) {
		t.Fatalf("two filters got %v, want %v", both, want)
	}
	if st := a.State(); len(st.Messages) != 2 || st.Status != Idle || st.LastReason != loop.ReasonStop {
		t.Fatalf("state %+v", st)
	}
}

// A nil filter is ignored; a filter that panics refuses the event and is
// recorded; a filter may read the Agent's state (filters run outside the
// dispatcher's lock). SubscribeEvents gets run_end without its Result.
func TestFiltersAreSafeAndSubscribeEventsSeesRunEnd(t *testing.T) {
	t.Parallel()
	a := New(Options{Model: faux.New(faux.Text("hi"))})
	var nilFiltered, reading, loopOnly []string
	var nilFilter Filter
	a.Subscribe(func(e Event) { nilFiltered = append(nilFiltered, string(e.Type)) }, nilFilter)
	a.Subscribe(func(Event) { t.Error("a subscriber whose filter panics got an event") },
		func(loop.EventType) bool { panic("bad filter") })
	a.Subscribe(func(e Event) { reading = append(reading, string(e.Type)) },
		func(t loop.EventType) bool { return a.State().RunID > 0 && t == loop.AgentEnd })
	a.SubscribeEvents(func(runID int, e loop.Event) { loopOnly = append(loopOnly, fmt.Sprint(runID, e.Type)) })
	done := make(chan loop.Result, 1)
	go func() { done <- mustPrompt(t, a, "x") }()
	var res loop.Result
	select {
	case res = <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the run hung")
	}
	if res.Reason != loop.ReasonStop || len(nilFiltered) == 0 || nilFiltered[len(nilFiltered)-1] != "run_end" {
		t.Fatalf("reason %s, nil-filtered subscriber saw %v", res.Reason, nilFiltered)
	}
	if !slices.Equal(reading, []string{"agent_end"}) {
		t.Fatalf("state-reading filter passed %v", reading)
	}
	if len(loopOnly) != len(nilFiltered) || loopOnly[len(loopOnly)-1] != "1run_end" {
		t.Fatalf("SubscribeEvents saw %v, all %v", loopOnly, nilFiltered)
	}
	if d := a.State().Diagnostics; len(d) == 0 || !strings.Contains(d[0], "filter panicked") {
		t.Fatalf("diagnostics %v", d)
	}
}

// Handed-over messages are the transcript as given; runs append after
// them and every exit is still a copy.
func TestOwnMessagesHandsTheTranscriptOver(t *testing.T) {
	t.Parallel()
	msgs := make([]ai.Message, 0, 8)
	msgs = append(msgs, ai.UserText("earlier", 1), ai.Message{Role: ai.RoleAssistant, Content: []ai.Content{ai.TextContent("noted")}})
	m := faux.New(faux.Text("again"))
	a := New(Options{Model: m, Messages: msgs, OwnMessages: true})
	res := mustPrompt(t, a, "more")
	if got := texts(a.Messages()); !slices.Equal(got, []string{"earlier", "noted", "more", "again"}) {
		t.Fatalf("transcript %v", got)
	}
	if got := texts(a.State().Messages); !slices.Equal(got, []string{"earlier", "noted", "more", "again"}) {
		t.Fatalf("state %v", got)
	}
	if got := texts(m.Requests()[0].Messages); !slices.Equal(got, []string{"earlier", "noted", "more"}) {
		t.Fatalf("the model saw %v", got)
	}
	res.Messages[0].Content[0].Text = "changed via result"
	a.State().Messages[1].Content[0].Text = "changed via state"
	if got := texts(a.Messages()); got[0] != "earlier" || got[1] != "noted" {
		t.Fatalf("an exit shares the handed-over messages: %v", got)
	}
}

// A complete message's message_start goes out only once the message is
// committed, together with its end; when its commit fails, neither does.
// (The streamed answer's start cannot wait: it opens the stream.)
func TestCompleteMessagesStartOnlyOnceCommitted(t *testing.T) {
	t.Parallel()
	for _, failOn := range []int{0, 1, 3} { // never, the prompt, the tool result
		m := faux.New(callResp(call("c1", "w", `{"ms":1}`)), faux.Text("done"))
		commits := 0
		a := New(Options{Model: m, Tools: toolstest.Registry(t, waitTool("w")), Commit: func(ai.Message) error {
			if commits+1 == failOn {
				return errors.New("disk full")
			}
			commits++
			return nil
		}})
		var log []string
		a.Subscribe(func(e Event) {
			if (e.Type == loop.MessageStart || e.Type == loop.MessageEnd) && e.Message.Role != ai.RoleAssistant {
				log = append(log, fmt.Sprintf("%s %s after %d commits", e.Type, e.Message.Role, commits))
			}
		})
		mustPrompt(t, a, "go")
		var want []string
		switch failOn {
		case 0:
			want = []string{"message_start user after 1 commits", "message_end user after 1 commits",
				"message_start toolResult after 3 commits", "message_end toolResult after 3 commits"}
		case 1:
			want = nil
		case 3:
			want = []string{"message_start user after 1 commits", "message_end user after 1 commits"}
		}
		if !slices.Equal(log, want) {
			t.Fatalf("failing commit %d: %q, want %q", failOn, log, want)
		}
	}
}
