package agent

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/ai/faux"
	"gopi/pkg/loop"
	"gopi/pkg/tools"
	"gopi/pkg/tools/toolstest"
)

// Lab 9.1 — the reducer derives state from events and copies its inputs.
func TestReducerDerivesRunStateAndCopiesInputs(t *testing.T) {
	t.Parallel()
	before := State{Status: Idle, Messages: []ai.Message{ai.UserText("earlier", 1)}, Diagnostics: []string{"d"}}
	s := Reduce(before, Event{RunID: 1, Event: loop.Event{Type: loop.AgentStart}})
	if s.Status != Running || s.RunID != 1 {
		t.Fatalf("after agent_start: %+v", s)
	}
	before.Messages[0].Content[0].Text = "mutated by the holder of the old state"
	before.Diagnostics[0] = "mutated"
	if got := s.Messages[0].Text(); got != "earlier" || s.Diagnostics[0] != "d" {
		t.Fatalf("agent_start shares the old state: %q %v", got, s.Diagnostics)
	}
	s.Messages, s.Diagnostics = nil, nil
	user := ai.UserText("check README", 1)
	s = Reduce(s, Event{RunID: 1, Event: loop.Event{Type: loop.MessageEnd, Message: &user}})
	user.Content[0].Text = "mutated by caller"
	s = Reduce(s, Event{RunID: 1, Event: loop.Event{Type: loop.MessageUpdate, Stream: &ai.Event{Type: ai.EventTextDelta, Delta: "hel"}}})
	s = Reduce(s, Event{RunID: 1, Event: loop.Event{Type: loop.MessageUpdate, Stream: &ai.Event{Type: ai.EventTextDelta, Delta: "lo"}}})
	if s.StreamingText != "hello" {
		t.Fatalf("streaming text %q", s.StreamingText)
	}
	s = Reduce(s, Event{RunID: 1, Event: loop.Event{Type: loop.ToolStart, ToolCallID: "a"}})
	s = Reduce(s, Event{RunID: 1, Event: loop.Event{Type: loop.ToolStart, ToolCallID: "b"}})
	mid := s
	s = Reduce(s, Event{RunID: 1, Event: loop.Event{Type: loop.ToolEnd, ToolCallID: "a"}})
	if !slices.Equal(s.PendingToolCalls, []string{"b"}) || !slices.Equal(mid.PendingToolCalls, []string{"a", "b"}) {
		t.Fatalf("pending %v, earlier state changed to %v", s.PendingToolCalls, mid.PendingToolCalls)
	}
	result := &loop.Result{Reason: loop.ReasonStop, Messages: []ai.Message{ai.UserText("check README", 1), {Role: ai.RoleAssistant, Content: []ai.Content{ai.TextContent("ok")}}}}
	s = Reduce(s, Event{RunID: 1, Event: loop.Event{Type: RunEnd}, Result: result})
	result.Messages[1].Content[0].Text = "mutated"
	if s.Status != Idle || s.LastReason != loop.ReasonStop || roles(s.Messages) != "user,assistant" || s.Messages[1].Text() != "ok" {
		t.Fatalf("after run_end: %+v", s)
	}
	if mid.Messages[0].Text() != "check README" {
		t.Fatalf("stored user message follows the caller's mutation: %q", mid.Messages[0].Text())
	}
}

// Lab 9.1 — late events of run 1 never overwrite run 2.
func TestReducerIgnoresLateEventsOfOlderRun(t *testing.T) {
	t.Parallel()
	s := Reduce(State{}, Event{RunID: 1, Event: loop.Event{Type: loop.AgentStart}})
	s = Reduce(s, Event{RunID: 1, Event: loop.Event{Type: RunEnd}, Result: &loop.Result{Reason: loop.ReasonStop}})
	s = Reduce(s, Event{RunID: 2, Event: loop.Event{Type: loop.AgentStart}})
	before := s.Clone()
	late := ai.UserText("late", 1)
	s = Reduce(s, Event{RunID: 1, Event: loop.Event{Type: loop.MessageEnd, Message: &late}})
	s = Reduce(s, Event{RunID: 1, Event: loop.Event{Type: loop.MessageUpdate, Stream: &ai.Event{Type: ai.EventTextDelta, Delta: "x"}}})
	s = Reduce(s, Event{RunID: 1, Event: loop.Event{Type: RunEnd}, Result: &loop.Result{Reason: loop.ReasonAborted}})
	if s.Status != Running || s.RunID != 2 || len(s.Messages) != len(before.Messages) || s.StreamingText != "" || s.LastReason != before.LastReason {
		t.Fatalf("late run-1 events changed run 2's state: %+v", s)
	}
}

// Lab 9.2 — busy guard, two sequential runs sharing the transcript, and a
// model failure that keeps the tool work already done.
func TestSequentialRunsShareTranscriptAndBusyGuard(t *testing.T) {
	t.Parallel()
	m := faux.New(
		faux.Response{Text: "looking", ToolCalls: []faux.ToolCall{call("c1", "w", `{"ms":30}`)}},
		faux.Text("README is fine"),
		faux.Text("committed"))
	a := New(Options{Model: m, Tools: toolstest.Registry(t, waitTool("w"))})
	started := make(chan struct{})
	a.Subscribe(func(e Event) {
		if e.Type == loop.ToolStart {
			close(started)
		}
	})
	var res1 loop.Result
	done := make(chan struct{})
	go func() { res1 = mustPrompt(t, a, "check README"); close(done) }()
	wait(t, "the tool to start", started)
	if _, err := a.PromptText(t.Context(), "second"); !errors.Is(err, ErrBusy) {
		t.Fatalf("prompt during a run: %v", err)
	}
	wait(t, "run 1", done)
	if res1.Reason != loop.ReasonStop || roles(res1.Messages) != "user,assistant,toolResult,assistant" {
		t.Fatalf("run 1: %s %s", res1.Reason, roles(res1.Messages))
	}
	res2 := mustPrompt(t, a, "commit the conclusion")
	reqs := m.Requests()
	if got := texts(reqs[2].Messages); !slices.Equal(got, []string{"check README", "looking", "w done", "README is fine", "commit the conclusion"}) {
		t.Fatalf("run 2's request saw %q", got)
	}
	if res2.Start != 4 || roles(res2.New()) != "user,assistant" {
		t.Fatalf("run 2 result: start %d %s", res2.Start, roles(res2.New()))
	}

	// A model failure after tools ran keeps the call and its result.
	m.Push(callResp(call("c2", "w", `{"ms":1}`)), faux.Response{Error: "provider down"})
	res3 := mustPrompt(t, a, "once more")
	if res3.Reason != loop.ReasonError || roles(res3.New()) != "user,assistant,toolResult,assistant" {
		t.Fatalf("run 3: %s %s", res3.Reason, roles(res3.New()))
	}
	if st := a.State(); roles(st.Messages) != roles(res3.Messages) || st.ErrorMessage == "" || st.Status != Idle {
		t.Fatalf("state after failure: %s %q %s", roles(st.Messages), st.ErrorMessage, st.Status)
	}
}

// Lab 9.2 — run 2 started from run 1's run_end: the old run's cleanup
// never clears the new run, and every subscriber sees the same order.
func TestRunStartedFromRunEndKeepsOwnership(t *testing.T) {
	t.Parallel()
	// Run 2's model answers only once the third prompt was refused: run 2
	// is active then, however late its agent_start is delivered.
	gm := &gatedModel{inner: faux.New(faux.Text("two")), asked: make(chan struct{}, 1), release: make(chan struct{})}
	a := New(Options{Model: faux.New(faux.Text("one"))})
	logA, logB := &eventLog{}, &eventLog{}
	var wg sync.WaitGroup
	var thirdErr error
	var res2 loop.Result
	a.Subscribe(func(e Event) {
		logA.add(e)
		if e.Type == RunEnd && e.RunID == 1 {
			a.Configure(func(o *Options) { o.Model = gm })
			wg.Add(1)
			go func() {
				defer wg.Done()
				res2, _ = a.PromptText(context.Background(), "second")
			}()
		}
		if e.Type == loop.AgentStart && e.RunID == 2 {
			_, thirdErr = a.PromptText(context.Background(), "third")
			close(gm.release)
		}
	})
	a.Subscribe(logB.add)
	mustPrompt(t, a, "first")
	within(t, "run 2", func() bool { wg.Wait(); return true })
	if !errors.Is(thirdErr, ErrBusy) {
		t.Fatalf("a prompt while run 2 was active got %v, want busy", thirdErr)
	}
	want := []string{"run1:agent_start", "run1:run_end", "run2:agent_start", "run2:run_end"}
	if got := lifecycle(logA.list()); !slices.Equal(got, want) {
		t.Fatalf("subscriber A saw %v", got)
	}
	if !slices.Equal(logA.list(), logB.list()) {
		t.Fatalf("subscribers saw different orders:\n%v\n%v", logA.list(), logB.list())
	}
	if res2.Reason != loop.ReasonStop || a.State().Status != Idle {
		t.Fatalf("run 2: %s, state %s", res2.Reason, a.State().Status)
	}
}

// Lab 9.3 — state is updated before subscribers run; a panicking
// subscriber is isolated; unsubscribe removes only its own listener.
func TestSubscribersSeeUpdatedStateAndAreIsolated(t *testing.T) {
	t.Parallel()
	a := New(Options{Model: faux.New(faux.Text("hi"))})
	var seen State
	var second []string
	var unsubFirst func()
	a.Subscribe(func(e Event) {
		if e.Type == loop.AgentStart {
			seen = a.State()
		}
	})
	unsubFirst = a.Subscribe(func(e Event) { panic("bad subscriber") })
	unsubDup := a.Subscribe(func(e Event) { second = append(second, "dup") })
	a.Subscribe(func(e Event) { second = append(second, string(e.Type)) })
	unsubDup()
	unsubDup() // twice is harmless
	res := mustPrompt(t, a, "x")
	if seen.Status != Running || seen.RunID != 1 {
		t.Fatalf("state inside agent_start: %s run %d", seen.Status, seen.RunID)
	}
	if res.Reason != loop.ReasonStop || len(second) == 0 || slices.Contains(second, "dup") {
		t.Fatalf("reason %s, later subscriber saw %v", res.Reason, second)
	}
	st := a.State()
	if len(st.Diagnostics) == 0 || !strings.Contains(st.Diagnostics[0], "bad subscriber") {
		t.Fatalf("diagnostics %v", st.Diagnostics)
	}
	unsubFirst()
	n := len(a.State().Diagnostics)
	mustPrompt(t, a, "y")
	if len(a.State().Diagnostics) != n {
		t.Fatal("the removed subscriber still ran")
	}
}

// Lab 9.3 — State, events and results are copies; unserialisable tool
// details become a standard error result and the agent ends idle.
func TestThreeExitsAreCopiesAndBadDetailsEndIdle(t *testing.T) {
	t.Parallel()
	bad := toolstest.Func{Name: "bad", Fn: func(context.Context, tools.Call) (tools.Result, error) {
		return tools.Result{Content: []ai.Content{ai.TextContent("x")}, Details: make(chan int)}, nil
	}}
	m := faux.New(callResp(call("c1", "bad", `{}`)), faux.Text("final"))
	a := New(Options{Model: m, Tools: toolstest.Registry(t, bad)})
	a.Subscribe(func(e Event) {
		if e.Message != nil && len(e.Message.Content) > 0 {
			e.Message.Content[0].Text = "changed by subscriber 1"
		}
		if e.Result != nil {
			e.Result.Messages[0].Content[0].Text = "changed by subscriber 1"
		}
	})
	var fromSecond []string
	a.Subscribe(func(e Event) {
		if e.Type == loop.MessageEnd {
			fromSecond = append(fromSecond, e.Message.Text())
		}
	})
	res := mustPrompt(t, a, "go")
	res.Messages[0].Content[0].Text = "changed via result"
	st := a.State()
	st.Messages[0].Content[0].Text = "changed via state"
	if got := a.State().Messages[0].Text(); got != "go" {
		t.Fatalf("internal transcript changed to %q", got)
	}
	if got := a.Messages()[0].Text(); got != "go" {
		t.Fatalf("transcript changed to %q", got)
	}
	if fromSecond[0] != "go" {
		t.Fatalf("subscriber 2 saw subscriber 1's change: %q", fromSecond[0])
	}
	tr := a.Messages()[2]
	if tr.ToolCallID != "c1" || !tr.IsError || !strings.Contains(tr.Text(), "cannot be recorded") {
		t.Fatalf("tool result %+v", tr)
	}
	if a.State().Status != Idle || res.Reason != loop.ReasonStop {
		t.Fatalf("status %s reason %s", a.State().Status, res.Reason)
	}
}

// Lab 9.4 — an abort from agent_start makes no model request; repeated
// aborts are harmless; the next run gets a fresh context.
func TestAbortBeforeModelRequestAndFreshNextRun(t *testing.T) {
	t.Parallel()
	cm := &ctxModel{inner: faux.New(faux.Text("answer"))}
	a := New(Options{Model: cm})
	abortNext := true
	a.Subscribe(func(e Event) {
		if e.Type == loop.AgentStart && abortNext {
			a.Abort()
			a.Abort()
		}
	})
	res := mustPrompt(t, a, "x")
	if res.Reason != loop.ReasonAborted || res.Steps != 0 || len(cm.ctxs) != 0 {
		t.Fatalf("reason %s steps %d requests %d", res.Reason, res.Steps, len(cm.ctxs))
	}
	a.Abort() // idle: nothing to cancel
	abortNext = false
	res2 := mustPrompt(t, a, "y")
	// Run 2 streamed to a natural stop: its context was not the aborted one.
	if res2.Reason != loop.ReasonStop || res2.Steps != 1 || len(cm.ctxs) != 1 {
		t.Fatalf("run 2: %s steps %d", res2.Reason, res2.Steps)
	}
}

// Lab 9.4 — model and tools get the same cancellation; an abort during a
// tool still pairs every call with a result; a model that ignores the
// cancellation still ends the run aborted.
func TestAbortReachesModelAndToolsWithPairedResults(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var toolCtx context.Context
	block := toolstest.Func{Name: "block", Fn: func(ctx context.Context, _ tools.Call) (tools.Result, error) {
		mu.Lock()
		toolCtx = ctx
		mu.Unlock()
		<-ctx.Done()
		return tools.ErrorResult("stopped"), nil
	}}
	cm := &ctxModel{inner: faux.New(callResp(call("c1", "block", `{}`), call("c2", "block", `{}`)), faux.Text("never"))}
	a := New(Options{Model: cm, Tools: toolstest.Registry(t, block)})
	a.Subscribe(func(e Event) {
		if e.Type == loop.ToolStart && e.ToolCallID == "c2" {
			go a.Abort()
		}
	})
	res := mustPrompt(t, a, "x")
	if res.Reason != loop.ReasonAborted || len(cm.ctxs) != 1 {
		t.Fatalf("reason %s requests %d", res.Reason, len(cm.ctxs))
	}
	if toolCtx.Done() != cm.ctxs[0].Done() {
		t.Fatal("model and tool saw different cancellation signals")
	}
	if roles(res.New()) != "user,assistant,toolResult,toolResult" {
		t.Fatalf("transcript %s", roles(res.New()))
	}

	ignoring := New(Options{Model: faux.New(faux.Response{Text: "la la la", ChunkSize: 1, DelayMs: 2, IgnoreCancel: true})})
	ignoring.Subscribe(func(e Event) {
		if e.Type == loop.MessageUpdate {
			ignoring.Abort()
		}
	})
	res2 := mustPrompt(t, ignoring, "x")
	if res2.Reason != loop.ReasonAborted {
		t.Fatalf("ignoring model: %s", res2.Reason)
	}
}

// Lab 9.5 — steering queued during a tool batch enters after the whole
// batch, FIFO, before the next model request.
func TestSteeringAfterBatchFIFO(t *testing.T) {
	t.Parallel()
	m := faux.New(callResp(call("slow", "w", `{"ms":60}`), call("fast", "w", `{"ms":1}`)), faux.Text("ok"))
	a := New(Options{Model: m, Tools: toolstest.Registry(t, waitTool("w")), SteeringMode: All})
	a.Subscribe(func(e Event) {
		if e.Type == loop.ToolStart && e.ToolCallID == "fast" {
			if err := a.SteerText("check tests first"); err != nil {
				t.Error(err)
			}
			if err := a.SteerText("then update docs"); err != nil {
				t.Error(err)
			}
		}
	})
	mustPrompt(t, a, "check README")
	second := m.Requests()[1].Messages
	if roles(second) != "user,assistant,toolResult,toolResult,user,user" || second[2].ToolCallID != "slow" {
		t.Fatalf("second request: %s", roles(second))
	}
	if second[4].Text() != "check tests first" || second[5].Text() != "then update docs" {
		t.Fatalf("steering order: %q %q", second[4].Text(), second[5].Text())
	}
}

// Lab 9.5 — steering that arrives while a text answer streams continues
// the same run after the answer.
func TestSteeringDuringTextAnswerContinuesRun(t *testing.T) {
	t.Parallel()
	m := faux.New(faux.Response{Text: "first answer", ChunkSize: 3}, faux.Text("second answer"))
	a := New(Options{Model: m})
	sent := false
	a.Subscribe(func(e Event) {
		if e.Type == loop.MessageUpdate && !sent {
			sent = true
			if err := a.SteerText("also this"); err != nil {
				t.Error(err)
			}
		}
	})
	res := mustPrompt(t, a, "x")
	if roles(res.New()) != "user,assistant,user,assistant" || res.Steps != 2 {
		t.Fatalf("transcript %s steps %d", roles(res.New()), res.Steps)
	}
}

// Lab 9.5 — follow-up after a natural stop; cancellation wins over queued
// input; after the final turn_end input is refused; the queue of an
// aborted run never reaches the next run.
func TestFollowUpAndTerminalQueueRules(t *testing.T) {
	t.Parallel()
	m := faux.New(faux.Text("done"), faux.Text("follow-up done"))
	a := New(Options{Model: m})
	var refused error
	a.Subscribe(func(e Event) {
		if e.Type == loop.MessageUpdate && e.RunID == 1 && refused == nil {
			_ = a.FollowUpText("and then this")
			refused = errors.New("sentinel")
		}
		if e.Type == loop.AgentEnd {
			refused = a.SteerText("too late")
		}
	})
	res := mustPrompt(t, a, "x")
	if roles(res.New()) != "user,assistant,user,assistant" || res.New()[2].Text() != "and then this" {
		t.Fatalf("follow-up run: %s", roles(res.New()))
	}
	if !errors.Is(refused, ErrNotRunning) || !strings.Contains(refused.Error(), "only while a run is active") {
		t.Fatalf("steer after the final turn_end: %v", refused)
	}
	if err := a.SteerText("idle"); !errors.Is(err, ErrNotRunning) {
		t.Fatalf("steer while idle: %v", err)
	}

	// Abort wins over queued steering, and the queue dies with the run.
	m2 := faux.New(faux.Response{Text: "slow", ChunkSize: 1, DelayMs: 5}, faux.Text("next run"))
	b := New(Options{Model: m2})
	once := false
	b.Subscribe(func(e Event) {
		if e.Type == loop.MessageUpdate && e.RunID == 1 && !once {
			once = true
			_ = b.SteerText("queued before abort")
			_ = b.FollowUpText("queued follow-up")
			b.Abort()
		}
	})
	res1 := mustPrompt(t, b, "x")
	if res1.Reason != loop.ReasonAborted || slices.Contains(texts(res1.Messages), "queued before abort") {
		t.Fatalf("aborted run: %s %q", res1.Reason, texts(res1.Messages))
	}
	mustPrompt(t, b, "y")
	for _, req := range m2.Requests() {
		for _, txt := range texts(req.Messages) {
			if strings.HasPrefix(txt, "queued") {
				t.Fatalf("queued input of the aborted run reached a model request: %q", txt)
			}
		}
	}
	if d := b.State().Diagnostics; len(d) == 0 || !strings.Contains(d[0], "not delivered") {
		t.Fatalf("dropped queue not reported: %v", d)
	}
}

func TestQueueModeOneAtATimeTakesOnePerBoundary(t *testing.T) {
	t.Parallel()
	m := faux.New(faux.Response{Text: "a", DelayMs: 20}, faux.Text("b"), faux.Text("c"))
	a := New(Options{Model: m}) // default one-at-a-time
	queued := false
	a.Subscribe(func(e Event) {
		if e.Type == loop.MessageStart && e.Message.Role == ai.RoleAssistant && !queued {
			queued = true
			_ = a.SteerText("s1")
			_ = a.SteerText("s2")
		}
	})
	mustPrompt(t, a, "x")
	reqs := m.Requests()
	if len(reqs) != 3 || roles(reqs[1].Messages) != "user,assistant,user" || roles(reqs[2].Messages) != "user,assistant,user,assistant,user" {
		t.Fatalf("requests: %d, %v", len(reqs), func() []string {
			var out []string
			for _, r := range reqs {
				out = append(out, roles(r.Messages))
			}
			return out
		}())
	}
}

func TestContinueRules(t *testing.T) {
	t.Parallel()
	m := faux.New(faux.Text("answer to pending"))
	a := New(Options{Model: m})
	if _, err := a.Continue(t.Context()); !errors.Is(err, ErrNothingToContinue) {
		t.Fatalf("continue on empty transcript: %v", err)
	}
	b := New(Options{Model: m, Messages: []ai.Message{ai.UserText("pending", 1)}})
	res, err := b.Continue(t.Context())
	if err != nil || roles(res.Messages) != "user,assistant" || res.Start != 1 {
		t.Fatalf("continue from a user message: %v %s", err, roles(res.Messages))
	}
	if _, err := b.Continue(t.Context()); !errors.Is(err, ErrNothingToContinue) {
		t.Fatalf("continue after the assistant's answer: %v", err)
	}
	tr := ai.Message{Role: ai.RoleToolResult, ToolCallID: "c", ToolName: "t", Content: []ai.Content{ai.TextContent("r")}}
	c := New(Options{Model: faux.New(faux.Text("ok")), Messages: []ai.Message{ai.UserText("u", 1),
		{Role: ai.RoleAssistant, Content: []ai.Content{ai.ToolCallContent("c", "t", nil)}, StopReason: ai.StopToolUse}, tr}})
	if res, err := c.Continue(t.Context()); err != nil || res.Reason != loop.ReasonStop {
		t.Fatalf("continue from a tool result: %v %s", err, res.Reason)
	}
	if _, err := a.Prompt(t.Context()); !errors.Is(err, ErrEmptyPrompt) {
		t.Fatalf("empty prompt: %v", err)
	}
}

func TestInitialMessagesAreCopied(t *testing.T) {
	t.Parallel()
	initial := []ai.Message{ai.UserText("old", 1), {Role: ai.RoleAssistant, Content: []ai.Content{ai.TextContent("old answer")}, StopReason: ai.StopStop}}
	m := faux.New(faux.Text("new"))
	a := New(Options{Model: m, Messages: initial})
	initial[0].Content[0].Text = "mutated"
	mustPrompt(t, a, "q")
	if got := m.Requests()[0].Messages[0].Text(); got != "old" {
		t.Fatalf("first request saw %q", got)
	}
}

func TestWaitForIdle(t *testing.T) {
	t.Parallel()
	a := New(Options{Model: faux.New(faux.Response{Text: "slow", DelayMs: 40}, faux.Response{Text: "long", ChunkSize: 1, DelayMs: 20})})
	if err := a.WaitForIdle(t.Context()); err != nil {
		t.Fatalf("idle: %v", err)
	}
	started := make(chan struct{}, 4)
	a.Subscribe(func(e Event) {
		if e.Type == loop.AgentStart {
			started <- struct{}{}
		}
	})
	waitAll := func() {
		var wg sync.WaitGroup
		for range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := a.WaitForIdle(t.Context()); err != nil {
					t.Error(err)
				}
				if st := a.State(); st.Status != Idle {
					t.Errorf("WaitForIdle returned while %s", st.Status)
				}
			}()
		}
		within(t, "WaitForIdle", func() bool { wg.Wait(); return true })
	}
	go a.PromptText(context.Background(), "normal")
	wait(t, "run 1 to start", started)
	waitAll()
	go a.PromptText(context.Background(), "to abort")
	wait(t, "run 2 to start", started)
	a.Abort()
	waitAll()
	if a.State().LastReason != loop.ReasonAborted {
		t.Fatalf("last reason %s", a.State().LastReason)
	}
	// Idle is idle even for a context that has ended.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := a.WaitForIdle(ctx); err != nil {
		t.Fatalf("idle again: %v", err)
	}
}

func TestConfigureAppliesToNextRun(t *testing.T) {
	t.Parallel()
	m1, m2 := faux.New(faux.Text("from one")), faux.New(faux.Text("from two"))
	a := New(Options{Model: m1, SystemPrompt: "one"})
	mustPrompt(t, a, "x")
	a.Configure(func(o *Options) { o.Model, o.SystemPrompt = m2, "two" })
	res := mustPrompt(t, a, "y")
	if f, _ := res.Final(); f.Text() != "from two" || m2.Requests()[0].SystemPrompt != "two" || len(m2.Requests()[0].Messages) != 3 {
		t.Fatalf("second run: %q", f.Text())
	}
}

func TestCommitRunsBeforeSubscribersAndFailureStopsTheRun(t *testing.T) {
	t.Parallel()
	m := faux.New(callResp(call("c1", "w", `{"ms":1}`)), faux.Text("never"))
	var committed []string
	var seenAtEnd []int
	failOn := 3 // user, assistant(call), then the tool result fails
	a := New(Options{Model: m, Tools: toolstest.Registry(t, waitTool("w")), Commit: func(msg ai.Message) error {
		if len(committed)+1 == failOn {
			return errors.New("disk full")
		}
		committed = append(committed, msg.Role)
		return nil
	}})
	var ended []string
	var agentEnd []ai.Message
	a.Subscribe(func(e Event) {
		switch e.Type {
		case loop.MessageEnd:
			seenAtEnd = append(seenAtEnd, len(committed))
			ended = append(ended, e.Message.Role)
		case loop.AgentEnd:
			agentEnd = e.Messages
		}
	})
	res := mustPrompt(t, a, "go")
	// Nothing that was not committed is reported: not as a message_end,
	// not in agent_end, not in the result, not in the state.
	if strings.Join(ended, ",") != "user,assistant" || roles(agentEnd) != "user,assistant" || roles(res.New()) != "user,assistant" {
		t.Fatalf("reported %v, agent_end %s, result %s", ended, roles(agentEnd), roles(res.New()))
	}
	if got := roles(a.State().Messages); got != "user,assistant" {
		t.Fatalf("state %s", got)
	}
	if res.Reason != loop.ReasonError || res.Err == nil || res.Err.Error() != "disk full" {
		t.Fatalf("reason %s err %v", res.Reason, res.Err)
	}
	if len(m.Requests()) != 1 {
		t.Fatalf("a model request after the failed commit: %d requests", len(m.Requests()))
	}
	if strings.Join(committed, ",") != "user,assistant" {
		t.Fatalf("committed %v", committed)
	}
	// Each message_end reached subscribers after its commit.
	if len(seenAtEnd) < 2 || seenAtEnd[0] != 1 || seenAtEnd[1] != 2 {
		t.Fatalf("commits seen at message_end: %v", seenAtEnd)
	}
}
