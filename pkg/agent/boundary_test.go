package agent

import (
	"errors"
	"slices"
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/ai/faux"
	"gopi/pkg/loop"
	"gopi/pkg/tools/toolstest"
)

// Steering and follow-up queued at the same moment (during a tool batch)
// enter at different boundaries: steering right after the batch, before
// the next request; the follow-up only once the model has stopped, and
// the same run then goes on with it.
func TestSteeringAndFollowUpEnterAtTheirBoundaries(t *testing.T) {
	t.Parallel()
	m := faux.New(callResp(call("c1", "w", `{"ms":1}`)), faux.Text("answered"), faux.Text("followed up"))
	a := New(Options{Model: m, Tools: toolstest.Registry(t, waitTool("w"))})
	a.Subscribe(func(e Event) {
		if e.Type == loop.ToolStart {
			if a.FollowUpText("follow") != nil || a.SteerText("steer") != nil {
				t.Error("input refused during the tool batch")
			}
		}
	})
	got := promptWithin(t, a, "go")
	if got.err != nil || got.res.Reason != loop.ReasonStop || got.res.Steps != 3 {
		t.Fatalf("run: %v %s steps %d", got.err, got.res.Reason, got.res.Steps)
	}
	want := []string{"go", "", "w done", "steer", "answered", "follow", "followed up"}
	if !slices.Equal(texts(got.res.New()), want) {
		t.Fatalf("transcript %q, want %q", texts(got.res.New()), want)
	}
	reqs := m.Requests()
	for i, n := range []int{1, 4, 6} {
		if got := texts(reqs[i].Messages); !slices.Equal(got, want[:n]) {
			t.Fatalf("request %d saw %q, want %q", i+1, got, want[:n])
		}
	}
}

// The follow-up mode decides how many follow-ups one stop takes: one at
// a time by default (each gets its own answer), or all at once.
func TestFollowUpModes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		mode QueueMode
		want []string
	}{
		{"", []string{"go", "a", "f1", "b", "f2", "c"}},
		{OneAtATime, []string{"go", "a", "f1", "b", "f2", "c"}},
		{All, []string{"go", "a", "f1", "f2", "b"}},
	} {
		m := faux.New(faux.Response{Text: "a"}, faux.Text("b"), faux.Text("c"))
		a := New(Options{Model: m, FollowUpMode: c.mode})
		queued := false
		a.Subscribe(func(e Event) {
			if e.Type == loop.MessageStart && e.Message.Role == ai.RoleAssistant && !queued {
				queued = true
				if a.FollowUpText("f1") != nil || a.FollowUpText("f2") != nil {
					t.Error("follow-up refused")
				}
			}
		})
		got := promptWithin(t, a, "go")
		if got.err != nil || !slices.Equal(texts(got.res.New()), c.want) {
			t.Fatalf("mode %q: %v %q, want %q", c.mode, got.err, texts(got.res.New()), c.want)
		}
	}
}

// Once the run is aborted, input is refused at once, before the run has
// ended: the run ends aborted without asking the queues again, so it
// would never be read.
func TestInputAfterAbortIsRefused(t *testing.T) {
	t.Parallel()
	a := New(Options{Model: faux.New(faux.Response{Text: "long answer", ChunkSize: 1})})
	var errs []error
	var unsent []ai.Message
	a.Subscribe(func(e Event) {
		if e.Type == loop.MessageUpdate && len(errs) == 0 {
			a.Abort()
			errs = append(errs, a.SteerText("after abort"), a.FollowUpText("after abort"))
		}
		if e.Type == RunEnd {
			unsent = e.Unsent
		}
	})
	got := promptWithin(t, a, "go")
	if got.err != nil || got.res.Reason != loop.ReasonAborted {
		t.Fatalf("run: %v %s", got.err, got.res.Reason)
	}
	if len(errs) != 2 || !errors.Is(errs[0], ErrNotRunning) || !errors.Is(errs[1], ErrNotRunning) || unsent != nil {
		t.Fatalf("input after abort: %v, unsent %q", errs, texts(unsent))
	}
}
