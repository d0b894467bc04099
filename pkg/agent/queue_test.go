package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/ai/faux"
	"gopi/pkg/loop"
	"gopi/pkg/tools"
	"gopi/pkg/tools/toolstest"
)

// blockTool waits for the run's cancellation.
var blockTool = toolstest.Func{Name: "block", Fn: func(ctx context.Context, _ tools.Call) (tools.Result, error) {
	<-ctx.Done()
	return tools.ErrorResult("stopped"), nil
}}

// Once a run's outcome is settled, Steer and FollowUp refuse input with
// the "only while a run is active" error instead of queueing what nobody
// would read: at the turn_end of a tool batch the run was aborted during
// (its stop reason is toolUse, the run then ends aborted), and at the
// turn_end of the last step the step limit allows.
func TestInputAfterSettledTurnEndIsRefused(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		opts   Options
		abort  bool
		reason loop.Reason
	}{
		{"aborted tool batch", Options{Model: faux.New(callResp(call("c1", "block", `{}`)), faux.Text("never")),
			Tools: toolstest.Registry(t, blockTool)}, true, loop.ReasonAborted},
		{"last allowed step", Options{Model: faux.New(callResp(call("c1", "w", `{"ms":1}`)), faux.Text("never")),
			Tools: toolstest.Registry(t, waitTool("w")), MaxSteps: 1}, false, loop.ReasonMaxSteps},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := New(c.opts)
			var steerErr, followErr error
			var stop ai.StopReason
			var unsent []ai.Message
			a.Subscribe(func(e Event) {
				switch e.Type {
				case loop.ToolStart:
					if c.abort {
						a.Abort()
					}
				case loop.TurnEnd:
					stop = e.Message.StopReason
					steerErr = a.SteerText("too late")
					followErr = a.FollowUpText("too late as well")
				case RunEnd:
					unsent = e.Unsent
				}
			})
			res := mustPrompt(t, a, "go")
			if stop != ai.StopToolUse || res.Reason != c.reason {
				t.Fatalf("turn_end stop reason %s, run reason %s", stop, res.Reason)
			}
			for _, err := range []error{steerErr, followErr} {
				if !errors.Is(err, ErrNotRunning) || !strings.Contains(fmt.Sprint(err), "only while a run is active") {
					t.Fatalf("input at the settled turn_end: %v, want the refusal", err)
				}
			}
			if len(unsent) != 0 || roles(res.New()) != "user,assistant,toolResult" {
				t.Fatalf("unsent %q, transcript %s", texts(unsent), roles(res.New()))
			}
		})
	}
}

// Input Steer or FollowUp accepted is never dropped silently: it is
// delivered in a later turn of the same run, or, when the run ends first
// (aborted, a failed commit, the step limit), returned with run_end in
// Event.Unsent, and it never reaches a later run.
func TestAcceptedInputIsDeliveredOrReturned(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		opts      func(*Options)
		at        loop.EventType // when the subscriber queues "steer" and "follow"
		abort     bool
		delivered bool
		reason    loop.Reason
	}{
		{"during a tool batch", nil, loop.ToolStart, false, true, loop.ReasonStop},
		{"at the turn_end of a text answer", nil, loop.TurnEnd, false, true, loop.ReasonStop},
		{"then aborted", nil, loop.ToolStart, true, false, loop.ReasonAborted},
		{"then the step limit", func(o *Options) { o.MaxSteps = 1 }, loop.ToolStart, false, false, loop.ReasonMaxSteps},
		{"then a failed commit", func(o *Options) {
			n := 0
			o.Commit = func(ai.Message) error {
				if n++; n == 3 { // user, assistant, then the tool result
					return errors.New("disk full")
				}
				return nil
			}
		}, loop.ToolStart, false, false, loop.ReasonError},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			script := []faux.Response{callResp(call("c1", "w", `{"ms":20}`)), faux.Text("answered"), faux.Text("more"), faux.Text("and more")}
			if c.at == loop.TurnEnd {
				script = script[1:]
			}
			m := faux.New(script...)
			opts := Options{Model: m, Tools: toolstest.Registry(t, waitTool("w")), SteeringMode: All, FollowUpMode: All}
			if c.opts != nil {
				c.opts(&opts)
			}
			a := New(opts)
			var accepted, unsent []string
			a.Subscribe(func(e Event) {
				if e.Type == c.at && e.RunID == 1 && len(accepted) == 0 {
					if a.SteerText("steer") == nil {
						accepted = append(accepted, "steer")
					}
					if a.FollowUpText("follow") == nil {
						accepted = append(accepted, "follow")
					}
					if c.abort {
						a.Abort()
					}
				}
				if e.Type == RunEnd && e.RunID == 1 {
					unsent = texts(e.Unsent)
				}
			})
			res := mustPrompt(t, a, "go")
			if res.Reason != c.reason || !slices.Equal(accepted, []string{"steer", "follow"}) {
				t.Fatalf("reason %s, accepted %q", res.Reason, accepted)
			}
			var delivered []string
			for _, msg := range res.New()[1:] {
				if msg.Role == ai.RoleUser {
					delivered = append(delivered, msg.Text())
				}
			}
			got, other := delivered, unsent
			if !c.delivered {
				got, other = unsent, delivered
			}
			if !slices.Equal(got, accepted) || len(other) != 0 {
				t.Fatalf("delivered %q, returned %q; accepted %q", delivered, unsent, accepted)
			}
			if c.delivered {
				return
			}
			m.Push(faux.Text("next run"))
			mustPrompt(t, a, "next")
			last := m.Requests()[len(m.Requests())-1]
			if slices.Contains(texts(last.Messages), "steer") || slices.Contains(texts(last.Messages), "follow") {
				t.Fatalf("returned input reached a later run: %q", texts(last.Messages))
			}
		})
	}
}

// Every change of a queue is a queue_update carrying both whole queues, as
// pi's json.md has it: when steering and a follow-up are queued, and when
// the run takes each of them.
func TestQueueUpdateReportsBothQueues(t *testing.T) {
	t.Parallel()
	a := New(Options{Model: faux.New(callResp(call("c1", "w", `{"ms":1}`)), faux.Text("steered"), faux.Text("followed")),
		Tools: toolstest.Registry(t, waitTool("w"))})
	var got []string
	a.Subscribe(func(e Event) {
		switch e.Type {
		case loop.ToolStart:
			if err := a.SteerText("look at b"); err != nil {
				t.Error(err)
			}
			if err := a.FollowUpText("then c"); err != nil {
				t.Error(err)
			}
		case loop.QueueUpdate:
			got = append(got, fmt.Sprintf("steering=%q followUp=%q", e.Steering, e.FollowUp))
		}
	})
	mustPrompt(t, a, "go")
	want := []string{
		`steering=["look at b"] followUp=[]`,
		`steering=["look at b"] followUp=["then c"]`,
		`steering=[] followUp=["then c"]`,
		`steering=[] followUp=[]`,
	}
	if !slices.Equal(got, want) {
		t.Fatalf("queue updates\n got %q\nwant %q", got, want)
	}
}
