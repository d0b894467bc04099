package agent

import (
	"context"
	"iter"
	"slices"
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/ai/faux"
	"gopi/pkg/loop"
)

// notifyingModel reports a compaction through the Agent from inside its
// stream, as the Runtime's context projection does.
type notifyingModel struct {
	a     *Agent
	inner ai.Model
}

func (m *notifyingModel) Stream(ctx context.Context, req *ai.Request) iter.Seq[ai.Event] {
	return func(yield func(ai.Event) bool) {
		m.a.Notify(loop.Event{Type: loop.CompactionStart, Compaction: &loop.CompactionInfo{Reason: "threshold"}})
		m.a.Notify(loop.Event{Type: loop.CompactionEnd, Compaction: &loop.CompactionInfo{Reason: "threshold", Summary: "s"}})
		for e := range m.inner.Stream(ctx, req) {
			if !yield(e) {
				return
			}
		}
	}
}

// Notify reports an event as one of the active run's, to every
// subscriber in order with the loop's; outside a run it reports nothing.
func TestNotifyReportsAsTheRunsEvent(t *testing.T) {
	t.Parallel()
	m := &notifyingModel{inner: faux.New(faux.Text("one"), faux.Text("two"))}
	a := New(Options{Model: m})
	m.a = a
	a.Notify(loop.Event{Type: loop.CompactionStart, Compaction: &loop.CompactionInfo{Reason: "idle"}})
	var log eventLog
	var summaries []string
	a.Subscribe(func(e Event) {
		log.add(e)
		if e.Type == loop.CompactionEnd {
			summaries = append(summaries, e.Compaction.Summary)
		}
	}, Except(loop.MessageUpdate))
	for _, p := range []string{"a", "b"} {
		if _, err := a.PromptText(t.Context(), p); err != nil {
			t.Fatal(err)
		}
	}
	a.Notify(loop.Event{Type: loop.CompactionStart, Compaction: &loop.CompactionInfo{Reason: "idle"}})
	var want []string
	for _, run := range []string{"run1:", "run2:"} {
		for _, typ := range []string{"agent_start", "turn_start", "message_start", "message_end", "compaction_start", "compaction_end",
			"message_start", "message_end", "turn_end", "agent_end", "run_end"} {
			want = append(want, run+typ)
		}
	}
	if got := log.list(); !slices.Equal(got, want) || !slices.Equal(summaries, []string{"s", "s"}) {
		t.Fatalf("events %v\nwant   %v\nsummaries %q", got, want, summaries)
	}
}
