package agent

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/ai/faux"
	"gopi/pkg/loop"
	"gopi/pkg/tools"
	"gopi/pkg/tools/toolstest"
)

// panickingSpecs is a tool set that fails before the loop emits anything.
type panickingSpecs struct{}

func (panickingSpecs) Specs() []ai.ToolSpec { panic("specs exploded") }
func (panickingSpecs) Execute(context.Context, ai.Content, func(tools.Result)) tools.Result {
	return tools.TextResult("never")
}

// A run that fails before the loop emitted its first event still has the
// whole lifecycle: agent_start and turn_start open it, the error message
// is committed and reported, and the state follows the run (running, then
// idle with the error and the same transcript as the result). The Agent
// then works again.
func TestFailureBeforeTheLoopStartsStillOpensTheRun(t *testing.T) {
	t.Parallel()
	var commits []string
	m := faux.New(faux.Text("fine now"))
	a := New(Options{Model: m, Tools: panickingSpecs{}, Messages: []ai.Message{ai.UserText("old", 1)},
		Commit: func(msg ai.Message) error {
			commits = append(commits, msg.Role+":"+msg.Text()+msg.ErrorMessage)
			return nil
		}})
	var log []string
	a.Subscribe(func(e Event) { log = append(log, describe(e)+" "+stateTag(a.State())) })
	got := promptWithin(t, a, "go")
	const failure = "agent run failed: specs exploded"
	if got.err != nil || got.res.Reason != loop.ReasonError || got.res.Err == nil || got.res.Err.Error() != failure {
		t.Fatalf("result: %v %s %v", got.err, got.res.Reason, got.res.Err)
	}
	if got.res.Start != 1 || got.res.Steps != 0 || roles(got.res.Messages) != "user,assistant" || got.res.Messages[1].ErrorMessage != failure {
		t.Fatalf("result: start %d steps %d %s", got.res.Start, got.res.Steps, roles(got.res.Messages))
	}
	after := `["old" ""]`
	want := []string{
		`run1 agent_start [running run1 ["old"]]`,
		`run1 turn_start [running run1 ["old"]]`,
		`run1 message_start assistant:""/error [running run1 ["old"]]`,
		`run1 message_end assistant:""/error [running run1 ` + after + `]`,
		`run1 turn_end assistant:""/error [running run1 ` + after + ` error="` + failure + `"]`,
		`run1 agent_end messages=[""] [running run1 ` + after + ` error="` + failure + `"]`,
		`run1 run_end result=error start=1 steps=0 ` + after + ` [idle run1 ` + after + ` last=error error="` + failure + `"]`,
	}
	if !slices.Equal(log, want) {
		t.Fatalf("events:\n%s\nwant:\n%s", strings.Join(log, "\n"), strings.Join(want, "\n"))
	}
	if !slices.Equal(commits, []string{"assistant:" + failure}) {
		t.Fatalf("commits %q", commits)
	}
	if !reflect.DeepEqual(a.Messages(), got.res.Messages) || !reflect.DeepEqual(a.State().Messages, got.res.Messages) {
		t.Fatalf("transcript %s, state %s", roles(a.Messages()), roles(a.State().Messages))
	}

	a.Configure(func(o *Options) { o.Tools = nil })
	next := promptWithin(t, a, "again")
	if next.err != nil || next.res.Reason != loop.ReasonStop || !slices.Equal(texts(next.res.New()), []string{"again", "fine now"}) {
		t.Fatalf("next run: %v %s %q", next.err, next.res.Reason, texts(next.res.New()))
	}
}

// When the Commit hook also panics while the failure's error message is
// committed, the run still ends (reason error, the hook's panic as the
// cause), nothing uncommitted is reported or kept, and the next run works.
func TestCommitPanicWhileWindingUpAFailedRun(t *testing.T) {
	t.Parallel()
	panicking := true
	a := New(Options{Model: faux.New(faux.Text("fine now")), Tools: panickingSpecs{},
		Commit: func(ai.Message) error {
			if panicking {
				panic("store exploded")
			}
			return nil
		}})
	var log []string
	a.Subscribe(func(e Event) { log = append(log, describe(e)) })
	got := promptWithin(t, a, "go")
	if got.err != nil || got.res.Reason != loop.ReasonError || got.res.Err == nil || got.res.Err.Error() != "commit panicked: store exploded" {
		t.Fatalf("result: %v %s %v", got.err, got.res.Reason, got.res.Err)
	}
	if len(got.res.Messages) != 0 || len(a.Messages()) != 0 {
		t.Fatalf("kept %q, transcript %q", texts(got.res.Messages), texts(a.Messages()))
	}
	want := []string{"run1 agent_start", "run1 turn_start", "run1 agent_end", "run1 run_end result=error start=0 steps=0 []"}
	if !slices.Equal(log, want) {
		t.Fatalf("events %q", log)
	}
	if st := a.State(); st.Status != Idle || st.LastReason != loop.ReasonError || len(st.Messages) != 0 {
		t.Fatalf("state %s", stateTag(st))
	}
	panicking = false
	a.Configure(func(o *Options) { o.Tools = nil })
	if next := promptWithin(t, a, "again"); next.err != nil || next.res.Reason != loop.ReasonStop {
		t.Fatalf("next run: %v %s", next.err, next.res.Reason)
	}
}

// A run wound up after a Commit panic reports the model requests it made
// and the usage of the answers it kept.
func TestRunWoundUpAfterCommitPanicCountsStepsAndUsage(t *testing.T) {
	t.Parallel()
	usage := ai.Usage{Input: 100, Output: 20, TotalTokens: 120}
	m := faux.New(faux.Response{ToolCalls: []faux.ToolCall{call("c1", "w", `{"ms":1}`)}, Usage: &usage})
	n := 0
	a := New(Options{Model: m, Tools: toolstest.Registry(t, waitTool("w")), Commit: func(ai.Message) error {
		if n++; n == 3 { // user, assistant, then the tool result
			panic("store exploded")
		}
		return nil
	}})
	var log []string
	var steerErr error
	a.Subscribe(func(e Event) {
		if e.Type != loop.MessageUpdate {
			log = append(log, describe(e))
		}
		if e.Type == loop.MessageStart && e.Message.StopReason == ai.StopError {
			// The run's outcome is settled once the panic was caught.
			steerErr = a.SteerText("too late")
		}
	})
	got := promptWithin(t, a, "go")
	if !errors.Is(steerErr, ErrNotRunning) {
		t.Fatalf("steering while the failed run was wound up: %v", steerErr)
	}
	if got.err != nil || got.res.Reason != loop.ReasonError || roles(got.res.New()) != "user,assistant,assistant" {
		t.Fatalf("result: %v %s %s", got.err, got.res.Reason, roles(got.res.New()))
	}
	// The run opened once; the tool result whose commit panicked is never
	// reported; the error message closes the turn the panic interrupted.
	want := []string{
		`run1 agent_start`, `run1 turn_start`,
		`run1 message_start user:"go"`, `run1 message_end user:"go"`,
		`run1 message_start assistant:""`, `run1 message_end assistant:""/toolUse`,
		`run1 tool_execution_start c1(w){"ms":1}`, `run1 tool_execution_end c1(w) out="w done"`,
		`run1 message_start assistant:""/error`, `run1 message_end assistant:""/error`, `run1 turn_end assistant:""/error`,
		`run1 agent_end messages=["go" "" ""]`,
		`run1 run_end result=error start=0 steps=1 ["go" "" ""]`,
	}
	if !slices.Equal(log, want) {
		t.Fatalf("events:\n%s\nwant:\n%s", strings.Join(log, "\n"), strings.Join(want, "\n"))
	}
	if e := got.res.Messages[2].ErrorMessage; e != "agent run failed: commit panicked: store exploded" {
		t.Fatalf("error message %q", e)
	}
	computed := false // faux prices the answer, as every adapter does
	wantUsage := usage
	wantUsage.Cost.TotalFromProvider = &computed
	if got.res.Steps != 1 || !reflect.DeepEqual(got.res.Usage, wantUsage) {
		t.Fatalf("steps %d, usage %+v, want 1 and %+v", got.res.Steps, got.res.Usage, wantUsage)
	}
}

// A failed turn settles the run: input offered at its turn_end is refused
// (the run ends with error and would never read it), and nothing reaches
// the next run.
func TestInputAtAFailedTurnEndIsRefused(t *testing.T) {
	t.Parallel()
	m := faux.New(faux.Response{Error: "provider down"}, faux.Text("next"))
	a := New(Options{Model: m})
	var steerErr, followErr error
	var unsent []ai.Message
	a.Subscribe(func(e Event) {
		switch e.Type {
		case loop.TurnEnd:
			steerErr = a.SteerText("too late")
			followErr = a.FollowUpText("too late as well")
		case RunEnd:
			unsent = e.Unsent
		}
	})
	got := promptWithin(t, a, "go")
	if got.err != nil || got.res.Reason != loop.ReasonError {
		t.Fatalf("run: %v %s", got.err, got.res.Reason)
	}
	if !errors.Is(steerErr, ErrNotRunning) || !errors.Is(followErr, ErrNotRunning) || unsent != nil {
		t.Fatalf("input at a failed turn_end: %v %v, unsent %q", steerErr, followErr, texts(unsent))
	}
	if d := a.State().Diagnostics; len(d) != 0 {
		t.Fatalf("diagnostics %q", d)
	}
}

// Input accepted and never delivered is returned with run_end and named
// in the diagnostics with the run, its reason and how many (one is
// reported as well as several).
func TestUndeliveredInputIsDiagnosed(t *testing.T) {
	t.Parallel()
	a := New(Options{Model: faux.New(faux.Response{Text: "slow", ChunkSize: 1}, faux.Response{Text: "slow", ChunkSize: 1}),
		SteeringMode: All})
	var queue []string
	var unsent []string
	a.Subscribe(func(e Event) {
		switch {
		case e.Type == loop.MessageUpdate && e.Stream.Type == ai.EventTextStart:
			for _, s := range queue {
				var err error
				if strings.HasPrefix(s, "f") {
					err = a.FollowUpText(s)
				} else {
					err = a.SteerText(s)
				}
				if err != nil {
					t.Error(err)
				}
			}
			a.Abort()
		case e.Type == RunEnd:
			unsent = texts(e.Unsent)
		}
	})
	var want []string
	for i, q := range [][]string{{"s1", "f1", "s2"}, {"s3"}} {
		queue = q
		got := promptWithin(t, a, "go")
		if wantUnsent := map[int][]string{0: {"s1", "s2", "f1"}, 1: {"s3"}}[i]; got.err != nil || got.res.Reason != loop.ReasonAborted || !slices.Equal(unsent, wantUnsent) {
			t.Fatalf("run %d: %v %s, unsent %q", i+1, got.err, got.res.Reason, unsent)
		}
		want = append(want, fmt.Sprintf("run %d ended (aborted) with %d queued message(s) not delivered (returned with run_end)", i+1, len(q)))
		if d := a.State().Diagnostics; !slices.Equal(d, want) {
			t.Fatalf("diagnostics %q, want %q", d, want)
		}
	}
}

// A message that starts whole is reported only once committed, also when
// it is the assistant's: the abort message of a run cancelled before its
// first request, whose commit fails, is never started.
func TestWholeAssistantMessageStartsOnlyOnceCommitted(t *testing.T) {
	t.Parallel()
	for _, fail := range []bool{false, true} {
		n := 0
		a := New(Options{Model: faux.New(faux.Text("never")), Commit: func(ai.Message) error {
			if n++; fail && n == 2 { // the prompt, then the abort message
				return errors.New("disk full")
			}
			return nil
		}})
		var log []string
		a.Subscribe(func(e Event) {
			if e.Type == loop.AgentStart {
				a.Abort()
			}
			if e.Message != nil {
				log = append(log, describe(e))
			}
		})
		got := promptWithin(t, a, "go")
		want := []string{`run1 message_start user:"go"`, `run1 message_end user:"go"`}
		if !fail {
			want = append(want, `run1 message_start assistant:""/aborted`, `run1 message_end assistant:""/aborted`, `run1 turn_end assistant:""/aborted`)
		}
		if !slices.Equal(log, want) {
			t.Fatalf("commit failing %v: events\n%s\nwant\n%s", fail, strings.Join(log, "\n"), strings.Join(want, "\n"))
		}
		if wantReason := map[bool]loop.Reason{false: loop.ReasonAborted, true: loop.ReasonError}[fail]; got.res.Reason != wantReason || len(got.res.New()) != len(want)/2 {
			t.Fatalf("commit failing %v: %s %s", fail, got.res.Reason, roles(got.res.New()))
		}
	}
}
