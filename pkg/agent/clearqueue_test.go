package agent

import (
	"slices"
	"testing"

	"gopi/pkg/ai/faux"
	"gopi/pkg/loop"
	"gopi/pkg/tools/toolstest"
)

// ClearQueue hands back what Steer and FollowUp queued and the run has
// not taken, reports the emptied queues as a queue_update, and the run
// goes on without them (neither delivered nor returned as unsent);
// Pending counts what waits, MessageCount the transcript as reported.
func TestClearQueueHandsBackWhatWaits(t *testing.T) {
	t.Parallel()
	a := New(Options{Model: faux.New(callResp(call("c1", "w", `{"ms":1}`)), faux.Text("done")),
		Tools: toolstest.Registry(t, waitTool("w"))})
	var pending, count int
	var steer, follow []string
	var updates [][]string
	var unsent int
	a.Subscribe(func(e Event) {
		switch e.Type {
		case loop.ToolStart:
			if err := a.SteerText("s1"); err != nil {
				t.Error(err)
			}
			if err := a.FollowUpText("f1"); err != nil {
				t.Error(err)
			}
			pending, count = a.Pending(), a.MessageCount()
			s, f := a.ClearQueue()
			steer, follow = texts(s), texts(f)
		case loop.QueueUpdate:
			updates = append(updates, append(slices.Clone(e.Steering), e.FollowUp...))
		case RunEnd:
			unsent = len(e.Unsent)
		}
	})
	res := mustPrompt(t, a, "go")
	if pending != 2 || count != 2 {
		t.Fatalf("pending %d, message count %d at the tool's start; want 2, 2 (user, assistant)", pending, count)
	}
	if !slices.Equal(steer, []string{"s1"}) || !slices.Equal(follow, []string{"f1"}) {
		t.Fatalf("cleared steering %q, follow-up %q", steer, follow)
	}
	if len(updates) != 3 || len(updates[2]) != 0 {
		t.Fatalf("queue_updates %q: want the two queued, then the emptied queues", updates)
	}
	if unsent != 0 || roles(res.New()) != "user,assistant,toolResult,assistant" {
		t.Fatalf("unsent %d, transcript %s", unsent, roles(res.New()))
	}
	if a.Pending() != 0 || a.MessageCount() != 4 {
		t.Fatalf("after the run: pending %d, message count %d", a.Pending(), a.MessageCount())
	}
	if s, f := a.ClearQueue(); s != nil || f != nil {
		t.Fatalf("ClearQueue while idle: %q %q", texts(s), texts(f))
	}
}
