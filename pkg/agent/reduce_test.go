package agent

import (
	"reflect"
	"slices"
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/loop"
)

// Reduce is pure: reducing the same state twice gives two independent
// results; the second never writes into what the first returned (their
// slices may not share spare capacity), and the input is left as it was.
func TestReduceIsPure(t *testing.T) {
	t.Parallel()
	s := State{Status: Running, RunID: 1,
		Messages:         append(make([]ai.Message, 0, 8), ai.UserText("earlier", 1)),
		PendingToolCalls: append(make([]string, 0, 4), "a")}
	before := s.Clone()
	first, second := ai.UserText("first", 2), ai.UserText("second", 3)
	steps := []struct{ e1, e2 Event }{
		{Event{RunID: 1, Event: loop.Event{Type: loop.MessageEnd, Message: &first}},
			Event{RunID: 1, Event: loop.Event{Type: loop.MessageEnd, Message: &second}}},
		{Event{RunID: 1, Event: loop.Event{Type: loop.ToolStart, ToolCallID: "b"}},
			Event{RunID: 1, Event: loop.Event{Type: loop.ToolStart, ToolCallID: "c"}}},
		{Event{RunID: 1, Event: loop.Event{Type: loop.MessageUpdate, Stream: &ai.Event{Type: ai.EventTextDelta, Delta: "x"}}},
			Event{RunID: 1, Event: loop.Event{Type: loop.MessageUpdate, Stream: &ai.Event{Type: ai.EventTextDelta, Delta: "y"}}}},
	}
	for _, step := range steps {
		r1 := Reduce(s, step.e1)
		kept := r1.Clone()
		r2 := Reduce(s, step.e2)
		if !reflect.DeepEqual(r1, kept) {
			t.Fatalf("%s: reducing the same state again changed the first result:\n%+v\nwant\n%+v", step.e1.Type, r1, kept)
		}
		if reflect.DeepEqual(r1, r2) {
			t.Fatalf("%s: the two events gave the same state", step.e1.Type)
		}
		if !reflect.DeepEqual(s, before) {
			t.Fatalf("%s: Reduce changed its input", step.e1.Type)
		}
	}
	if got := texts(Reduce(s, steps[0].e2).Messages); !slices.Equal(got, []string{"earlier", "second"}) {
		t.Fatalf("messages %q", got)
	}
}
