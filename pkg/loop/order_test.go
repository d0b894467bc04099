package loop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"gopi/pkg/ai"
	"gopi/pkg/ai/faux"
	"gopi/pkg/tools"
	"gopi/pkg/tools/toolstest"
)

// The clocks of the order tests: the model stamps its messages with
// modelTime, the loop stamps what it makes with loopTime.
var (
	modelTime = time.UnixMilli(1_000)
	loopTime  = time.UnixMilli(2_000)
)

func loopClock() time.Time { return loopTime }

// describe renders an event with its whole payload, one line.
func describe(e Event) string {
	s := string(e.Type)
	switch e.Type {
	case MessageStart, MessageEnd:
		s += " " + describeMessage(e.Message)
	case MessageUpdate:
		st := e.Stream
		s += fmt.Sprintf(" %s#%d", st.Type, st.Index)
		if st.Delta != "" {
			s += fmt.Sprintf(" %q", st.Delta)
		}
		if st.Block != nil {
			s += " block=" + describeContent(*st.Block)
		}
	case ToolStart:
		s += fmt.Sprintf(" %s %s %s", e.ToolCallID, e.ToolName, e.Args)
	case ToolUpdate:
		s += fmt.Sprintf(" %s %s %s partial=%s", e.ToolCallID, e.ToolName, e.Args, describeOutput(e.Result))
	case ToolEnd:
		s += fmt.Sprintf(" %s %s %s isError=%v", e.ToolCallID, e.ToolName, describeOutput(e.Result), e.IsError)
	case TurnEnd:
		s += " " + describeMessage(e.Message)
		var ids []string
		for _, m := range e.ToolResults {
			ids = append(ids, m.ToolCallID)
		}
		s += fmt.Sprintf(" results=%v", ids)
	case AgentEnd:
		var parts []string
		for _, m := range e.Messages {
			parts = append(parts, m.Role+":"+m.Text())
		}
		s += fmt.Sprintf(" %q", parts)
	case RetryStart, RetryEnd:
		ri := e.Retry
		s += fmt.Sprintf(" {Attempt:%d MaxAttempts:%d Delay:%v ErrorMessage:%s Success:%v}", ri.Attempt, ri.MaxAttempts, ri.Delay, ri.ErrorMessage, ri.Success)
	case CompactionStart, CompactionEnd:
		s += fmt.Sprintf(" %+v", *e.Compaction)
	case ContextTrimmed:
		s += fmt.Sprintf(" %+v", *e.Trim)
	}
	return s
}

func describeMessage(m *ai.Message) string {
	var parts []string
	for _, c := range m.Content {
		parts = append(parts, describeContent(c))
	}
	s := fmt.Sprintf("%s%v ts=%d", m.Role, parts, m.Timestamp)
	if m.Provider != "" {
		s += " by=" + m.API + "/" + m.Provider + "/" + m.Model
	}
	if m.StopReason != "" {
		s += " stop=" + string(m.StopReason)
	}
	if m.ErrorMessage != "" {
		s += fmt.Sprintf(" err=%q", m.ErrorMessage)
	}
	if m.ToolCallID != "" {
		s += fmt.Sprintf(" for=%s/%s isError=%v", m.ToolCallID, m.ToolName, m.IsError)
	}
	if len(m.Details) > 0 {
		s += " details=" + string(m.Details)
	}
	return s
}

func describeContent(c ai.Content) string {
	switch c.Type {
	case ai.TypeText:
		return fmt.Sprintf("text:%q", c.Text)
	case ai.TypeThinking:
		return fmt.Sprintf("thinking:%q", c.Thinking)
	case ai.TypeToolCall:
		return fmt.Sprintf("call:%s:%s:%s", c.ID, c.Name, c.Arguments)
	}
	return string(c.Type)
}

func describeOutput(o *ToolOutput) string {
	var parts []string
	for _, c := range o.Content {
		parts = append(parts, describeContent(c))
	}
	s := fmt.Sprint(parts)
	if len(o.Details) > 0 {
		s += " details=" + string(o.Details)
	}
	return s
}

// script records every event, described, and runs hooks on some.
type script struct {
	mu   sync.Mutex
	got  []string
	hook func(Event)
}

func (s *script) emit(e Event) {
	s.mu.Lock()
	s.got = append(s.got, describe(e))
	s.mu.Unlock()
	if s.hook != nil {
		s.hook(e)
	}
}

func (s *script) check(t *testing.T, want []string) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if slices.Equal(s.got, want) {
		return
	}
	var b strings.Builder
	for i := range max(len(s.got), len(want)) {
		g, w := "(none)", "(none)"
		if i < len(s.got) {
			g = s.got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		mark := "  "
		if g != w {
			mark = "! "
		}
		fmt.Fprintf(&b, "%s%d got  %s\n%s%d want %s\n", mark, i, g, mark, i, w)
	}
	t.Fatalf("events differ:\n%s", b.String())
}

func usage(in, out int64) *ai.Usage {
	return &ai.Usage{Input: in, Output: out, TotalTokens: in + out}
}

// One run with every kind of turn: thinking, text and two tool calls in
// one answer (the second ends first; the results still follow call
// order), a partial result, steering entering after the whole batch, then
// a text stop and a follow-up. Every event, in order, with its payload.
func TestRunEventsInOrderWithPayloads(t *testing.T) {
	t.Parallel()
	bEnded := make(chan struct{})
	slowA := toolstest.Func{Name: "slow", Parameters: sleeperSchema, Fn: func(_ context.Context, c tools.Call) (tools.Result, error) {
		<-bEnded // b's tool_execution_end was emitted
		return tools.Result{Content: []ai.Content{ai.TextContent("A done")}, Details: map[string]int{"n": 1}}, nil
	}}
	quickB := toolstest.Func{Name: "quick", Parameters: sleeperSchema, Fn: func(_ context.Context, c tools.Call) (tools.Result, error) {
		c.Update(tools.TextResult("B half"))
		return tools.ErrorResult("B failed"), nil
	}}
	m := faux.New(
		faux.Response{Thinking: "plan", Text: "calling", Usage: usage(10, 5),
			ToolCalls: []faux.ToolCall{call("a", "slow", `{"text":"A"}`), call("b", "quick", `{}`)}},
		faux.Response{Text: "after steering", Usage: usage(20, 6)},
		faux.Response{Text: "after follow-up", Usage: usage(30, 7)},
	).WithClock(func() time.Time { return modelTime })
	s := &script{}
	s.hook = func(e Event) {
		if e.Type == ToolEnd && e.ToolCallID == "b" {
			close(bEnded)
		}
	}
	steered, followed := 0, 0
	steer := func() []ai.Message {
		steered++
		if steered == 2 { // after the batch
			return []ai.Message{ai.UserText("steer 1", 3), ai.UserText("steer 2", 4)}
		}
		return nil
	}
	follow := func() []ai.Message {
		followed++
		if followed == 1 {
			return []ai.Message{ai.UserText("follow", 5)}
		}
		return nil
	}
	history := []ai.Message{ai.UserText("old", 1), {Role: ai.RoleAssistant, Content: []ai.Content{ai.TextContent("old answer")},
		StopReason: ai.StopStop, Usage: ai.Usage{Input: 1000, Output: 1000, TotalTokens: 2000}}}
	reg := toolstest.Registry(t, slowA, quickB)
	res := Run(t.Context(), Config{Model: m, Tools: reg, Emit: s.emit, Now: loopClock, Steering: steer, FollowUp: follow,
		SystemPrompt: "sys", MaxTokens: 77, Thinking: ai.ThinkingLow}, history, prompt("go"))

	by := " by=faux/faux/faux"
	s.check(t, []string{
		"agent_start",
		"turn_start",
		`message_start user[text:"go"] ts=1`,
		`message_end user[text:"go"] ts=1`,
		`message_start assistant[] ts=1000` + by,
		`message_update thinking_start#0 block=thinking:""`,
		`message_update thinking_delta#0 "plan"`,
		`message_update thinking_end#0 block=thinking:"plan"`,
		`message_update text_start#1 block=text:""`,
		`message_update text_delta#1 "calling"`,
		`message_update text_end#1 block=text:"calling"`,
		`message_update toolcall_start#2 block=call:a:slow:`,
		`message_update toolcall_delta#2 "{\"text\":\"A\"}"`,
		`message_update toolcall_end#2 block=call:a:slow:{"text":"A"}`,
		`message_update toolcall_start#3 block=call:b:quick:`,
		`message_update toolcall_delta#3 "{}"`,
		`message_update toolcall_end#3 block=call:b:quick:{}`,
		`message_end assistant[thinking:"plan" text:"calling" call:a:slow:{"text":"A"} call:b:quick:{}] ts=1000` + by + ` stop=toolUse`,
		`tool_execution_start a slow {"text":"A"}`,
		`tool_execution_start b quick {}`,
		`tool_execution_update b quick {} partial=[text:"B half"]`,
		`tool_execution_end b quick [text:"B failed"] isError=true`,
		`tool_execution_end a slow [text:"A done"] details={"n":1} isError=false`,
		`message_start toolResult[text:"A done"] ts=2000 for=a/slow isError=false details={"n":1}`,
		`message_end toolResult[text:"A done"] ts=2000 for=a/slow isError=false details={"n":1}`,
		`message_start toolResult[text:"B failed"] ts=2000 for=b/quick isError=true`,
		`message_end toolResult[text:"B failed"] ts=2000 for=b/quick isError=true`,
		`turn_end assistant[thinking:"plan" text:"calling" call:a:slow:{"text":"A"} call:b:quick:{}] ts=1000` + by + ` stop=toolUse results=[a b]`,
		"turn_start",
		`message_start user[text:"steer 1"] ts=3`,
		`message_end user[text:"steer 1"] ts=3`,
		`message_start user[text:"steer 2"] ts=4`,
		`message_end user[text:"steer 2"] ts=4`,
		`message_start assistant[] ts=1000` + by,
		`message_update text_start#0 block=text:""`,
		`message_update text_delta#0 "after steering"`,
		`message_update text_end#0 block=text:"after steering"`,
		`message_end assistant[text:"after steering"] ts=1000` + by + ` stop=stop`,
		`turn_end assistant[text:"after steering"] ts=1000` + by + ` stop=stop results=[]`,
		"turn_start",
		`message_start user[text:"follow"] ts=5`,
		`message_end user[text:"follow"] ts=5`,
		`message_start assistant[] ts=1000` + by,
		`message_update text_start#0 block=text:""`,
		`message_update text_delta#0 "after follow-up"`,
		`message_update text_end#0 block=text:"after follow-up"`,
		`message_end assistant[text:"after follow-up"] ts=1000` + by + ` stop=stop`,
		`turn_end assistant[text:"after follow-up"] ts=1000` + by + ` stop=stop results=[]`,
		`agent_end ["user:go" "assistant:calling" "toolResult:A done" "toolResult:B failed" "user:steer 1" "user:steer 2" "assistant:after steering" "user:follow" "assistant:after follow-up"]`,
	})
	if res.Reason != ReasonStop || res.Err != nil || res.Steps != 3 || res.Start != 2 || len(res.Messages) != 11 {
		t.Fatalf("result %s %v steps %d start %d messages %d", res.Reason, res.Err, res.Steps, res.Start, len(res.Messages))
	}
	// This run's answers only, not the history's.
	if want := (ai.Usage{Input: 60, Output: 18, TotalTokens: 78}); res.Usage.Input != want.Input || res.Usage.Output != want.Output || res.Usage.TotalTokens != want.TotalTokens {
		t.Fatalf("usage %+v, want %+v", res.Usage, want)
	}
	// Steering is asked before the first request and after each turn; a
	// follow-up only when the run would stop.
	if steered != 4 || followed != 2 {
		t.Fatalf("steering asked %d times, follow-up %d", steered, followed)
	}
	reqs := m.Requests()
	for i, q := range reqs {
		if q.SystemPrompt != "sys" || q.MaxTokens != 77 || q.Thinking != ai.ThinkingLow || len(q.Tools) != 2 || q.Tools[0].Name != "slow" {
			t.Fatalf("request %d: %+v", i, q)
		}
	}
	if got := roles(reqs[1].Messages); got != "user,assistant,user,assistant,toolResult,toolResult,user,user" {
		t.Fatalf("second request %s", got)
	}
	if got := roles(reqs[2].Messages); got != "user,assistant,user,assistant,toolResult,toolResult,user,user,assistant,user" {
		t.Fatalf("third request %s", got)
	}
}

// A run cancelled during a tool batch: every call gets its result, in
// call order, the turn ends with them, and the run ends aborted without
// asking the model again or taking queued input.
func TestCancelledBatchEventsInOrder(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	bEnded := make(chan struct{})
	waiter := toolstest.Func{Name: "wait", Parameters: sleeperSchema, Fn: func(ctx context.Context, _ tools.Call) (tools.Result, error) {
		<-ctx.Done()
		<-bEnded
		return tools.ErrorResult("a: cancelled"), nil
	}}
	canceller := toolstest.Func{Name: "cancel", Parameters: sleeperSchema, Fn: func(context.Context, tools.Call) (tools.Result, error) {
		cancel()
		return tools.TextResult("b: cancelled the run"), nil
	}}
	m := faux.New(calls(call("a", "wait", `{}`), call("b", "cancel", `{}`)), faux.Text("never")).WithClock(func() time.Time { return modelTime })
	s := &script{hook: func(e Event) {
		if e.Type == ToolEnd && e.ToolCallID == "b" {
			close(bEnded)
		}
	}}
	steered, followed := 0, 0
	res := Run(ctx, Config{Model: m, Tools: toolstest.Registry(t, waiter, canceller), Emit: s.emit, Now: loopClock,
		Steering: func() []ai.Message { steered++; return nil }, FollowUp: func() []ai.Message { followed++; return nil }}, nil, prompt("go"))
	skip := func(evs []string) []string { // the streamed deltas are pinned elsewhere
		return slices.DeleteFunc(evs, func(e string) bool { return strings.HasPrefix(e, "message_update") })
	}
	s.got = skip(s.got)
	answer := `assistant[call:a:wait:{} call:b:cancel:{}] ts=1000 by=faux/faux/faux stop=toolUse`
	s.check(t, []string{
		"agent_start", "turn_start",
		`message_start user[text:"go"] ts=1`, `message_end user[text:"go"] ts=1`,
		`message_start assistant[] ts=1000 by=faux/faux/faux`,
		"message_end " + answer,
		`tool_execution_start a wait {}`,
		`tool_execution_start b cancel {}`,
		`tool_execution_end b cancel [text:"b: cancelled the run"] isError=false`,
		`tool_execution_end a wait [text:"a: cancelled"] isError=true`,
		`message_start toolResult[text:"a: cancelled"] ts=2000 for=a/wait isError=true`,
		`message_end toolResult[text:"a: cancelled"] ts=2000 for=a/wait isError=true`,
		`message_start toolResult[text:"b: cancelled the run"] ts=2000 for=b/cancel isError=false`,
		`message_end toolResult[text:"b: cancelled the run"] ts=2000 for=b/cancel isError=false`,
		"turn_end " + answer + " results=[a b]",
		`agent_end ["user:go" "assistant:" "toolResult:a: cancelled" "toolResult:b: cancelled the run"]`,
	})
	if res.Reason != ReasonAborted || !errors.Is(res.Err, context.Canceled) || res.Steps != 1 || len(m.Requests()) != 1 {
		t.Fatalf("result %s %v steps %d requests %d", res.Reason, res.Err, res.Steps, len(m.Requests()))
	}
	if steered != 1 || followed != 0 {
		t.Fatalf("queues asked after the cancelled batch: steering %d, follow-up %d", steered, followed)
	}
}

// The step limit ends the run after the last allowed turn's results,
// with maxSteps, without asking the queues again.
func TestMaxStepsEventsInOrder(t *testing.T) {
	t.Parallel()
	m := faux.New(calls(call("c1", "t", `{}`)), calls(call("c2", "t", `{}`)), faux.Text("never")).WithClock(func() time.Time { return modelTime })
	s := &script{}
	steered, followed := 0, 0
	res := Run(t.Context(), Config{Model: m, MaxSteps: 2, Tools: toolstest.Registry(t, sleeper("t")), Emit: s.emit, Now: loopClock,
		Steering: func() []ai.Message { steered++; return nil }, FollowUp: func() []ai.Message { followed++; return nil }}, nil, prompt("go"))
	s.got = slices.DeleteFunc(s.got, func(e string) bool { return strings.HasPrefix(e, "message_update") })
	turn := func(id string) []string {
		answer := fmt.Sprintf(`assistant[call:%s:t:{}] ts=1000 by=faux/faux/faux stop=toolUse`, id)
		result := fmt.Sprintf(`toolResult[text:"t:"] ts=2000 for=%s/t isError=false`, id)
		return []string{
			`message_start assistant[] ts=1000 by=faux/faux/faux`, "message_end " + answer,
			"tool_execution_start " + id + " t {}", "tool_execution_end " + id + ` t [text:"t:"] isError=false`,
			"message_start " + result, "message_end " + result,
			"turn_end " + answer + " results=[" + id + "]",
		}
	}
	want := []string{"agent_start", "turn_start", `message_start user[text:"go"] ts=1`, `message_end user[text:"go"] ts=1`}
	want = append(want, turn("c1")...)
	want = append(want, "turn_start")
	want = append(want, turn("c2")...)
	want = append(want, `agent_end ["user:go" "assistant:" "toolResult:t:" "assistant:" "toolResult:t:"]`)
	s.check(t, want)
	if res.Reason != ReasonMaxSteps || res.Err != nil || res.Steps != 2 || len(m.Requests()) != 2 {
		t.Fatalf("result %s %v steps %d", res.Reason, res.Err, res.Steps)
	}
	if steered != 2 || followed != 0 {
		t.Fatalf("steering asked %d times, follow-up %d (not after the last step)", steered, followed)
	}
}

// A text answer at the step limit is a normal stop: the limit only
// matters when the model wanted to go on.
func TestTextAnswerAtTheStepLimitIsAStop(t *testing.T) {
	t.Parallel()
	m := faux.New(faux.Text("done"))
	res := Run(t.Context(), Config{Model: m, MaxSteps: 1}, nil, prompt("go"))
	if res.Reason != ReasonStop || res.Steps != 1 {
		t.Fatalf("result %s steps %d", res.Reason, res.Steps)
	}
	m = faux.New(faux.Response{Text: "cut", StopReason: "length"})
	if res := Run(t.Context(), Config{Model: m, MaxSteps: 1}, nil, prompt("go")); res.Reason != ReasonLength {
		t.Fatalf("a cut answer at the limit: %s", res.Reason)
	}
}

// Without a step limit the default, 100 model requests, bounds the run.
func TestDefaultStepLimit(t *testing.T) {
	t.Parallel()
	const limit = 100
	m := faux.New()
	for range limit + 1 {
		m.Push(calls(call("", "t", `{}`)))
	}
	res := Run(t.Context(), Config{Model: m, Tools: toolstest.Registry(t, sleeper("t"))}, nil, prompt("go"))
	if res.Reason != ReasonMaxSteps || res.Steps != limit || len(m.Requests()) != limit {
		t.Fatalf("result %s steps %d", res.Reason, res.Steps)
	}
}

// Cancelled before the first request: the run still opens and closes,
// with an aborted assistant message the loop stamps itself.
func TestAbortedBeforeRequestEventsInOrder(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	s := &script{}
	m := faux.New(faux.Text("never"))
	res := Run(ctx, Config{Model: m, Emit: s.emit, Now: loopClock}, nil, prompt("go"))
	aborted := `assistant[] ts=2000 stop=aborted err="aborted before the model was asked"`
	s.check(t, []string{
		"agent_start", "turn_start",
		`message_start user[text:"go"] ts=1`, `message_end user[text:"go"] ts=1`,
		"message_start " + aborted, "message_end " + aborted,
		"turn_end " + aborted + " results=[]",
		`agent_end ["user:go" "assistant:"]`,
	})
	if res.Reason != ReasonAborted || !errors.Is(res.Err, context.Canceled) || res.Steps != 0 || len(m.Requests()) != 0 {
		t.Fatalf("result %s %v steps %d", res.Reason, res.Err, res.Steps)
	}
}

// A failed answer that made tool calls: each call gets a result saying it
// was skipped, then the turn and the run end with the error.
func TestFailedAnswerWithCallsEventsInOrder(t *testing.T) {
	t.Parallel()
	m := faux.New(faux.Response{ToolCalls: []faux.ToolCall{call("a", "t", `{}`), call("b", "t", `{}`)}, Error: "overloaded"}).
		WithClock(func() time.Time { return modelTime })
	s := &script{}
	ran := false
	tool := toolstest.Func{Name: "t", Parameters: sleeperSchema, Fn: func(context.Context, tools.Call) (tools.Result, error) {
		ran = true
		return tools.TextResult(""), nil
	}}
	res := Run(t.Context(), Config{Model: m, Tools: toolstest.Registry(t, tool), Emit: s.emit, Now: loopClock}, nil, prompt("go"))
	s.got = slices.DeleteFunc(s.got, func(e string) bool { return strings.HasPrefix(e, "message_update") })
	answer := `assistant[call:a:t:{} call:b:t:{}] ts=1000 by=faux/faux/faux stop=error err="server: overloaded"`
	skipped := func(id string) string {
		return fmt.Sprintf(`toolResult[text:"Tool call skipped: the run ended (error) before it ran."] ts=2000 for=%s/t isError=true`, id)
	}
	s.check(t, []string{
		"agent_start", "turn_start",
		`message_start user[text:"go"] ts=1`, `message_end user[text:"go"] ts=1`,
		`message_start assistant[] ts=1000 by=faux/faux/faux`,
		"message_end " + answer,
		"message_start " + skipped("a"), "message_end " + skipped("a"),
		"message_start " + skipped("b"), "message_end " + skipped("b"),
		"turn_end " + answer + " results=[a b]",
		`agent_end ["user:go" "assistant:" "toolResult:Tool call skipped: the run ended (error) before it ran." "toolResult:Tool call skipped: the run ended (error) before it ran."]`,
	})
	if res.Reason != ReasonError || ai.ClassOf(res.Err) != ai.ClassServer || ran {
		t.Fatalf("result %s %v, tool ran %v", res.Reason, res.Err, ran)
	}
}

// rawModel streams exactly the given events.
type rawModel []ai.Event

func (r rawModel) Stream(context.Context, *ai.Request) iter.Seq[ai.Event] {
	return func(yield func(ai.Event) bool) {
		for _, e := range r {
			if !yield(e) {
				return
			}
		}
	}
}

// What a model leaves out, the loop fills in: a start without a message,
// a final message without a timestamp, an error stop without an error;
// retry events without their details pass as empty ones.
func TestModelGapsAreFilled(t *testing.T) {
	t.Parallel()
	final := ai.Message{Role: ai.RoleAssistant, Content: []ai.Content{ai.TextContent("partial")}, StopReason: ai.StopError, ErrorMessage: "went away"}
	model := rawModel{
		{Type: ai.EventStart},
		{Type: ai.EventRetryStart},
		{Type: ai.EventRetryEnd},
		{Type: ai.EventError, Message: &final},
	}
	s := &script{}
	res := Run(t.Context(), Config{Model: model, Emit: s.emit, Now: loopClock}, nil, prompt("go"))
	answer := `assistant[text:"partial"] ts=2000 stop=error err="went away"`
	s.check(t, []string{
		"agent_start", "turn_start",
		`message_start user[text:"go"] ts=1`, `message_end user[text:"go"] ts=1`,
		"message_start assistant[] ts=2000",
		"auto_retry_start {Attempt:0 MaxAttempts:0 Delay:0s ErrorMessage: Success:false}",
		"auto_retry_end {Attempt:0 MaxAttempts:0 Delay:0s ErrorMessage: Success:false}",
		"message_start assistant[] ts=2000", // after the retry: a new attempt
		"message_end " + answer,
		"turn_end " + answer + " results=[]",
		`agent_end ["user:go" "assistant:partial"]`,
	})
	if res.Reason != ReasonError || res.Err == nil || res.Err.Error() != "went away" {
		t.Fatalf("result %s %v", res.Reason, res.Err)
	}
	if got := res.New()[1]; got.Timestamp != loopTime.UnixMilli() {
		t.Fatalf("final message timestamp %d", got.Timestamp)
	}
}

// noticingModel reports a compaction and a trimmed context through the
// run's notify before each request, as the Runtime's context projection
// does from inside its stream.
type noticingModel struct {
	inner  ai.Model
	notify func(Event)
}

func (m *noticingModel) Stream(ctx context.Context, req *ai.Request) iter.Seq[ai.Event] {
	return func(yield func(ai.Event) bool) {
		m.notify(Event{Type: CompactionStart, Compaction: &CompactionInfo{Reason: "threshold"}})
		m.notify(Event{Type: CompactionEnd, Compaction: &CompactionInfo{Reason: "threshold", Summary: "s"}})
		m.notify(Event{Type: ContextTrimmed, Trim: &TrimInfo{Reason: TrimAfterCompaction, Messages: 2}})
		for e := range m.inner.Stream(ctx, req) {
			if !yield(e) {
				return
			}
		}
	}
}

// What a layer above the loop reports through Notices goes out in order
// with the loop's events: in the first turn after its turn_start; in a
// later one a compaction precedes the turn's turn_start (pi compacts
// between turns) and a trimmed context, part of the request, follows it.
func TestNoticesInOrderWithTheLoopsEvents(t *testing.T) {
	t.Parallel()
	m := &noticingModel{inner: faux.New(calls(call("a", "t", `{}`)), faux.Text("done")).WithClock(func() time.Time { return modelTime })}
	s := &script{}
	res := Run(t.Context(), Config{Model: m, Tools: toolstest.Registry(t, sleeper("t")), Emit: s.emit, Now: loopClock,
		Notices: func(notify func(Event)) { m.notify = notify }}, nil, prompt("go"))
	var got []string
	for _, g := range s.got {
		if typ, _, _ := strings.Cut(g, " "); typ != string(MessageUpdate) && !strings.HasPrefix(typ, "tool_execution") {
			got = append(got, typ)
		}
	}
	notices := []string{"compaction_start", "compaction_end", "context_trimmed"}
	want := slices.Concat([]string{"agent_start", "turn_start", "message_start", "message_end"}, notices,
		[]string{"message_start", "message_end", "message_start", "message_end", "turn_end"},
		notices[:2], []string{"turn_start"}, notices[2:],
		[]string{"message_start", "message_end", "turn_end", "agent_end"})
	if !slices.Equal(got, want) || res.Reason != ReasonStop {
		t.Fatalf("events %v\nwant   %v\n(reason %s)", got, want, res.Reason)
	}
	if !slices.Contains(s.got, "context_trimmed {Reason:afterCompaction ContextWindow:0 Turns:0 Messages:2 FirstDroppedEntryID: FirstKeptEntryID: Tokens:0 ErrorMessage:}") {
		t.Fatalf("the trim's payload is not the one reported: %v", s.got)
	}
}

// A message_start carries the model's api, provider, model and its own
// timestamp when the start event names them; the final message keeps its
// own timestamp.
func TestMessageStartTakesTheModelsHead(t *testing.T) {
	t.Parallel()
	head := ai.Message{Role: ai.RoleAssistant, API: "api", Provider: "prov", Model: "mod", Timestamp: 5}
	final := ai.Message{Role: ai.RoleAssistant, Content: []ai.Content{ai.TextContent("hi")}, StopReason: ai.StopStop, Timestamp: 6,
		API: "api", Provider: "prov", Model: "mod"}
	noStamp := head
	noStamp.Timestamp = 0
	for _, c := range []struct {
		start *ai.Message
		want  string
	}{
		{&head, "message_start assistant[] ts=5 by=api/prov/mod"},
		{&noStamp, "message_start assistant[] ts=2000 by=api/prov/mod"},
	} {
		s := &script{}
		res := Run(t.Context(), Config{Model: (rawModel{{Type: ai.EventStart, Message: c.start}, {Type: ai.EventDone, Message: &final}}),
			Emit: s.emit, Now: loopClock}, nil, prompt("go"))
		if s.got[4] != c.want || res.New()[1].Timestamp != 6 || res.Reason != ReasonStop || res.Err != nil {
			t.Fatalf("events %v, result %s %v", s.got, res.Reason, res.Err)
		}
	}
}

// A model whose stream has no start event still opens its message before
// the first delta, once.
func TestMessageStartBeforeTheFirstDelta(t *testing.T) {
	t.Parallel()
	final := ai.Message{Role: ai.RoleAssistant, Content: []ai.Content{ai.TextContent("ab")}, StopReason: ai.StopStop, Timestamp: 6}
	model := rawModel{{Type: ai.EventTextDelta, Delta: "a"}, {Type: ai.EventTextDelta, Delta: "b"}, {Type: ai.EventDone, Message: &final}}
	s := &script{}
	Run(t.Context(), Config{Model: model, Emit: s.emit, Now: loopClock}, nil, prompt("go"))
	want := []string{"message_start assistant[] ts=2000", `message_update text_delta#0 "a"`, `message_update text_delta#0 "b"`,
		`message_end assistant[text:"ab"] ts=6 stop=stop`}
	if !slices.Equal(s.got[4:8], want) {
		t.Fatalf("events %v", s.got)
	}
}

// A model that panics after it started: one message_start, then the
// error message.
func TestPanicAfterStartOpensOneMessage(t *testing.T) {
	t.Parallel()
	s := &script{}
	res := Run(t.Context(), Config{Model: panicAfterStart{}, Emit: s.emit, Now: loopClock}, nil, prompt("go"))
	s.got = s.got[4:]
	if want := []string{"message_start assistant[] ts=2000", `message_end assistant[] ts=2000 stop=error err="model panicked: gone"`}; !slices.Equal(s.got[:2], want) {
		t.Fatalf("events %v", s.got)
	}
	if res.Reason != ReasonError || res.Err.Error() != "model panicked: gone" {
		t.Fatalf("result %s %v", res.Reason, res.Err)
	}
}

type panicAfterStart struct{}

func (panicAfterStart) Stream(context.Context, *ai.Request) iter.Seq[ai.Event] {
	return func(yield func(ai.Event) bool) {
		yield(ai.Event{Type: ai.EventStart})
		panic("gone")
	}
}

// History is copied into the result, never aliased, and a run that only
// continues it reports only its own messages.
func TestResultHoldsHistoryThenTheRunsMessages(t *testing.T) {
	t.Parallel()
	history := []ai.Message{ai.UserText("old", 1), {Role: ai.RoleAssistant, Content: []ai.Content{ai.TextContent("old answer")}, StopReason: ai.StopStop}}
	history = append(history, ai.UserText("pending", 2))
	m := faux.New(faux.Text("new"))
	res := Run(t.Context(), Config{Model: m}, history, nil)
	if res.Start != 3 || roles(res.Messages) != "user,assistant,user,assistant" || res.Messages[0].Text() != "old" {
		t.Fatalf("start %d messages %s", res.Start, roles(res.Messages))
	}
	res.Messages[0].Content = nil
	if history[0].Text() != "old" {
		t.Fatal("the result aliases the history")
	}
	c := res.Clone()
	c.Messages[1].Content[0].Text = "changed"
	if res.Messages[1].Text() != "old answer" {
		t.Fatal("Clone shares the messages")
	}
	if f, ok := (&Result{Messages: history, Start: 3}).Final(); ok || f.Role != "" {
		t.Fatal("a run without an answer has a final message")
	}
	if f, ok := (&Result{Messages: history, Start: 0}).Final(); !ok || f.Text() != "old answer" {
		t.Fatalf("final %q", f.Text())
	}
}

// Tool results whose details or content need care: raw JSON details are
// kept (copied), invalid raw JSON is refused, nil content is an empty
// list, and a cancelled context's abandoned call names the cause.
func TestToolResultEdges(t *testing.T) {
	t.Parallel()
	raw := json.RawMessage(`{"k":[1,2]}`)
	tool := func(name string, r tools.Result) toolstest.Func {
		return toolstest.Func{Name: name, Parameters: sleeperSchema, Fn: func(context.Context, tools.Call) (tools.Result, error) { return r, nil }}
	}
	m := faux.New(calls(call("a", "raw", `{}`), call("b", "bad", `{}`), call("c", "empty", `{}`)), faux.Text("ok"))
	res := Run(t.Context(), Config{Model: m, Tools: toolstest.Registry(t,
		tool("raw", tools.Result{Content: []ai.Content{ai.TextContent("r")}, Details: raw}),
		tool("bad", tools.Result{Content: []ai.Content{ai.TextContent("b")}, Details: json.RawMessage(`{"k":`)}),
		tool("empty", tools.Result{}),
	)}, nil, prompt("go"))
	raw[2] = 'X'
	got := res.New()[2:5]
	if string(got[0].Details) != `{"k":[1,2]}` || got[0].IsError {
		t.Fatalf("raw details %s", got[0].Details)
	}
	if !got[1].IsError || !strings.Contains(got[1].Text(), "invalid JSON") || got[1].Details != nil {
		t.Fatalf("invalid details: %+v", got[1])
	}
	if got[2].Content == nil || len(got[2].Content) != 0 || got[2].IsError {
		t.Fatalf("empty result %+v", got[2])
	}
}

// An answer the model itself marks aborted ends the run aborted, with the
// model's error, or context.Canceled when it gives none.
func TestAbortedAnswerWithoutCancellation(t *testing.T) {
	t.Parallel()
	aborted := ai.Message{Role: ai.RoleAssistant, Content: []ai.Content{}, StopReason: ai.StopAborted, Timestamp: 6}
	cause := errors.New("the user pressed escape upstream")
	for _, c := range []struct {
		err  error
		want error
	}{{nil, context.Canceled}, {cause, cause}} {
		res := Run(t.Context(), Config{Model: rawModel{{Type: ai.EventError, Message: &aborted, Err: c.err}}}, nil, prompt("go"))
		if res.Reason != ReasonAborted || !errors.Is(res.Err, c.want) {
			t.Fatalf("model error %v: result %s %v", c.err, res.Reason, res.Err)
		}
	}
}

// Without a grace period set, a cancelled run still waits a moment for a
// tool that stops soon after the cancellation, and keeps its result.
func TestDefaultGraceAwaitsAToolThatStopsSoon(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	slowToNotice := toolstest.Func{Name: "slow", Parameters: sleeperSchema, Fn: func(ctx context.Context, _ tools.Call) (tools.Result, error) {
		<-ctx.Done()
		time.Sleep(20 * time.Millisecond) // cleaning up
		return tools.ErrorResult("slow: stopped"), nil
	}}
	m := faux.New(calls(call("a", "slow", `{}`)))
	emit := func(e Event) {
		if e.Type == ToolStart {
			go cancel()
		}
	}
	res := runBounded(t, ctx, Config{Model: m, Emit: emit, Tools: toolstest.Registry(t, slowToNotice)})
	if got := res.New()[2].Text(); res.Reason != ReasonAborted || got != "slow: stopped" {
		t.Fatalf("reason %s result %q", res.Reason, got)
	}
}
