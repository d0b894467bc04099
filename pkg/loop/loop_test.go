package loop

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"gopi/internal/fdcheck"
	"gopi/pkg/ai"
	"gopi/pkg/ai/faux"
	"gopi/pkg/tools"
	"gopi/pkg/tools/toolstest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m, goleak.Cleanup(fdcheck.Main())) }

// sleeperSchema is what the loop tests' tools accept.
var sleeperSchema = json.RawMessage(`{"type":"object","properties":{"ms":{"type":"integer"},"text":{"type":"string"}},"additionalProperties":false}`)

// sleeper waits args.ms (or until cancelled) and answers args.text.
func sleeper(name string) toolstest.Func {
	return toolstest.Func{Name: name, Parameters: sleeperSchema, Fn: func(ctx context.Context, call tools.Call) (tools.Result, error) {
		var a struct {
			Ms   int
			Text string
		}
		_ = json.Unmarshal(call.Args, &a)
		select {
		case <-time.After(time.Duration(a.Ms) * time.Millisecond):
			return tools.TextResult(name + ":" + a.Text), nil
		case <-ctx.Done():
			return tools.ErrorResult(name + ": cancelled"), nil
		}
	}}
}

// recorder collects events (safe for the tools' goroutines).
type recorder struct {
	mu  sync.Mutex
	evs []Event
}

func (r *recorder) emit(e Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.evs = append(r.evs, e.Clone())
}

func (r *recorder) types() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, e := range r.evs {
		if e.Type == MessageUpdate {
			continue
		}
		s := string(e.Type)
		if e.Message != nil {
			s += ":" + e.Message.Role
		}
		if e.ToolCallID != "" {
			s += ":" + e.ToolCallID
		}
		out = append(out, s)
	}
	return out
}

func prompt(s string) []ai.Message { return []ai.Message{ai.UserText(s, 1)} }

func calls(cs ...faux.ToolCall) faux.Response { return faux.Response{ToolCalls: cs} }

func call(id, name, args string) faux.ToolCall {
	return faux.ToolCall{ID: id, Name: name, Arguments: json.RawMessage(args)}
}

func roles(ms []ai.Message) string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Role)
	}
	return strings.Join(out, ",")
}

func TestTextAnswerEventsInPisOrder(t *testing.T) {
	m := faux.New(faux.Response{Text: "hello there", ChunkSize: 5})
	rec := &recorder{}
	res := Run(t.Context(), Config{Model: m, Emit: rec.emit, SystemPrompt: "sys"}, nil, prompt("hi"))
	want := []string{"agent_start", "turn_start", "message_start:user", "message_end:user",
		"message_start:assistant", "message_end:assistant", "turn_end:assistant", "agent_end"}
	if got := rec.types(); !slices.Equal(got, want) {
		t.Fatalf("events:\n got %v\nwant %v", got, want)
	}
	var deltas []string
	for _, e := range rec.evs {
		if e.Type == MessageUpdate && e.Stream.Type == ai.EventTextDelta {
			deltas = append(deltas, e.Stream.Delta)
		}
	}
	if strings.Join(deltas, "|") != "hello| ther|e" {
		t.Fatalf("deltas %q", deltas)
	}
	if res.Reason != ReasonStop || res.Steps != 1 || roles(res.New()) != "user,assistant" {
		t.Fatalf("result %s steps %d roles %s", res.Reason, res.Steps, roles(res.New()))
	}
	if req := m.Requests()[0]; req.SystemPrompt != "sys" || len(req.Messages) != 1 {
		t.Fatalf("request %+v", req)
	}
	if res.Usage.Output == 0 {
		t.Fatal("usage not summed")
	}
}

func TestToolResultsFollowCallOrderNotCompletionOrder(t *testing.T) {
	m := faux.New(calls(call("slow", "slow", `{"text":"s"}`), call("fast", "fast", `{"text":"f"}`)), faux.Text("done"))
	rec := &recorder{}
	// slow returns only once fast's tool_execution_end was emitted.
	fastEnded := make(chan struct{})
	slow := toolstest.Func{Name: "slow", Parameters: sleeperSchema, Fn: func(context.Context, tools.Call) (tools.Result, error) {
		<-fastEnded
		return tools.TextResult("slow:s"), nil
	}}
	emit := func(e Event) {
		rec.emit(e)
		if e.Type == ToolEnd && e.ToolCallID == "fast" {
			close(fastEnded)
		}
	}
	res := Run(t.Context(), Config{Model: m, Emit: emit, Tools: toolstest.Registry(t, slow, sleeper("fast"))}, nil, prompt("go"))
	if res.Reason != ReasonStop || res.Steps != 2 {
		t.Fatalf("reason %s steps %d", res.Reason, res.Steps)
	}
	got := rec.types()
	want := []string{"agent_start", "turn_start", "message_start:user", "message_end:user",
		"message_start:assistant", "message_end:assistant",
		"tool_execution_start:slow", "tool_execution_start:fast",
		"tool_execution_end:fast", "tool_execution_end:slow", // completion order
		"message_start:toolResult", "message_end:toolResult", "message_start:toolResult", "message_end:toolResult",
		"turn_end:assistant", "turn_start", "message_start:assistant", "message_end:assistant", "turn_end:assistant", "agent_end"}
	if !slices.Equal(got, want) {
		t.Fatalf("events:\n got %v\nwant %v", got, want)
	}
	second := m.Requests()[1].Messages
	if roles(second) != "user,assistant,toolResult,toolResult" || second[2].ToolCallID != "slow" || second[3].ToolCallID != "fast" {
		t.Fatalf("second request: %s %s %s", roles(second), second[2].ToolCallID, second[3].ToolCallID)
	}
	if second[2].Text() != "slow:s" {
		t.Fatalf("result text %q", second[2].Text())
	}
}

func TestModelErrorKeepsToolWorkInTranscript(t *testing.T) {
	m := faux.New(calls(call("c1", "t", `{"text":"x"}`)), faux.Response{Error: "upstream exploded", ErrorClass: "server"})
	res := Run(t.Context(), Config{Model: m, Tools: toolstest.Registry(t, sleeper("t"))}, nil, prompt("go"))
	if res.Reason != ReasonError || ai.ClassOf(res.Err) != ai.ClassServer {
		t.Fatalf("reason %s err %v", res.Reason, res.Err)
	}
	msgs := res.New()
	if roles(msgs) != "user,assistant,toolResult,assistant" {
		t.Fatalf("transcript %s", roles(msgs))
	}
	last := msgs[3]
	if last.StopReason != ai.StopError || !strings.Contains(last.ErrorMessage, "upstream exploded") {
		t.Fatalf("last %+v", last)
	}
}

func TestUnknownToolAndInvalidArgumentsBecomeErrorsTheModelSees(t *testing.T) {
	m := faux.New(
		calls(call("u", "nosuch", `{}`), call("v", "t", `{"ms":"soon"}`), call("w", "t", `not json`)),
		faux.Text("recovered"))
	res := Run(t.Context(), Config{Model: m, Tools: toolstest.Registry(t, sleeper("t"))}, nil, prompt("go"))
	if res.Reason != ReasonStop {
		t.Fatalf("reason %s", res.Reason)
	}
	results := m.Requests()[1].Messages[2:5]
	for i, want := range []string{`"nosuch" not found`, "Invalid arguments for tool t", "not a JSON object"} {
		if !results[i].IsError || !strings.Contains(results[i].Text(), want) {
			t.Errorf("result %d: isError=%v %q, want %q", i, results[i].IsError, results[i].Text(), want)
		}
	}
	if !strings.Contains(results[1].Text(), `"soon"`) {
		t.Errorf("invalid arguments should be echoed: %q", results[1].Text())
	}
}

func TestNoToolsEnabledStillAnswersEveryCall(t *testing.T) {
	m := faux.New(calls(call("a", "read", `{}`)), faux.Text("ok"))
	res := Run(t.Context(), Config{Model: m}, nil, prompt("go"))
	if roles(res.New()) != "user,assistant,toolResult,assistant" || !res.New()[2].IsError {
		t.Fatalf("transcript %s", roles(res.New()))
	}
}

func TestCancelledBeforeStartMakesNoModelRequest(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	m := faux.New(faux.Text("never"))
	res := Run(ctx, Config{Model: m}, nil, prompt("go"))
	if res.Reason != ReasonAborted || res.Steps != 0 || len(m.Requests()) != 0 {
		t.Fatalf("reason %s steps %d requests %d", res.Reason, res.Steps, len(m.Requests()))
	}
	if !errors.Is(res.Err, context.Canceled) {
		t.Fatalf("err %v", res.Err)
	}
	if last := res.New()[1]; last.StopReason != ai.StopAborted {
		t.Fatalf("last message %+v", last)
	}
}

func TestModelIgnoringCancellationStillEndsAborted(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	m := faux.New(faux.Response{Text: "I did not notice", ChunkSize: 2, DelayMs: 2, IgnoreCancel: true})
	cancelled := false
	emit := func(e Event) {
		if e.Type == MessageUpdate && !cancelled {
			cancelled = true
			cancel()
		}
	}
	res := Run(ctx, Config{Model: m, Emit: emit}, nil, prompt("go"))
	if res.Reason != ReasonAborted {
		t.Fatalf("reason %s", res.Reason)
	}
	if final, _ := res.Final(); final.Text() != "I did not notice" {
		t.Fatalf("the model's message should be kept: %q", final.Text())
	}
}

func TestCancelDuringToolBatchGivesEveryCallOneResult(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	m := faux.New(calls(call("a", "t", `{"ms":10000}`), call("b", "t", `{"ms":10000}`)), faux.Text("never asked"))
	emit := func(e Event) {
		if e.Type == ToolStart && e.ToolCallID == "b" {
			go cancel()
		}
	}
	start := time.Now()
	res := Run(ctx, Config{Model: m, Emit: emit, Tools: toolstest.Registry(t, sleeper("t"))}, nil, prompt("go"))
	if time.Since(start) > 5*time.Second {
		t.Fatal("tools did not see the cancellation")
	}
	if res.Reason != ReasonAborted || len(m.Requests()) != 1 {
		t.Fatalf("reason %s requests %d", res.Reason, len(m.Requests()))
	}
	if roles(res.New()) != "user,assistant,toolResult,toolResult" {
		t.Fatalf("transcript %s", roles(res.New()))
	}
}

func TestAbortedAnswerWithToolCallsGetsSynthesizedResults(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	m := faux.New(faux.Response{ToolCalls: []faux.ToolCall{call("a", "t", `{"text":"xxxxxxxx"}`)}, ChunkSize: 3, DelayMs: 1})
	emit := func(e Event) {
		if e.Type == MessageUpdate && e.Stream.Type == ai.EventToolCallDelta {
			cancel()
		}
	}
	ran := false
	tool := toolstest.Func{Name: "t", Parameters: sleeperSchema, Fn: func(context.Context, tools.Call) (tools.Result, error) { ran = true; return tools.TextResult(""), nil }}
	res := Run(ctx, Config{Model: m, Emit: emit, Tools: toolstest.Registry(t, tool)}, nil, prompt("go"))
	if res.Reason != ReasonAborted || ran {
		t.Fatalf("reason %s ran %v", res.Reason, ran)
	}
	msgs := res.New()
	if roles(msgs) != "user,assistant,toolResult" || msgs[2].ToolCallID != "a" || !msgs[2].IsError {
		t.Fatalf("transcript %s %+v", roles(msgs), msgs)
	}
}

func TestMaxStepsEndsTheRun(t *testing.T) {
	loopCall := calls(call("", "t", `{}`))
	m := faux.New(loopCall, loopCall, loopCall, loopCall)
	res := Run(t.Context(), Config{Model: m, MaxSteps: 3, Tools: toolstest.Registry(t, sleeper("t"))}, nil, prompt("go"))
	if res.Reason != ReasonMaxSteps || res.Steps != 3 || len(m.Requests()) != 3 {
		t.Fatalf("reason %s steps %d", res.Reason, res.Steps)
	}
	if last := res.New()[len(res.New())-1]; last.Role != ai.RoleToolResult {
		t.Fatalf("the last call should still have its result, got %s", last.Role)
	}
}

func TestSteeringEntersAfterTheWholeBatchInFIFOOrder(t *testing.T) {
	m := faux.New(calls(call("slow", "t", `{"ms":50}`), call("fast", "t", `{"ms":1}`)), faux.Text("ok"))
	var mu sync.Mutex
	var queue []ai.Message
	emit := func(e Event) {
		if e.Type == ToolEnd && e.ToolCallID == "fast" {
			mu.Lock()
			queue = append(queue, ai.UserText("check tests first", 2), ai.UserText("then docs", 3))
			mu.Unlock()
		}
	}
	steer := func() []ai.Message {
		mu.Lock()
		defer mu.Unlock()
		q := queue
		queue = nil
		return q
	}
	res := Run(t.Context(), Config{Model: m, Emit: emit, Steering: steer, Tools: toolstest.Registry(t, sleeper("t"))}, nil, prompt("go"))
	second := m.Requests()[1].Messages
	if roles(second) != "user,assistant,toolResult,toolResult,user,user" {
		t.Fatalf("second request %s", roles(second))
	}
	if second[4].Text() != "check tests first" || second[5].Text() != "then docs" {
		t.Fatalf("steering order %q %q", second[4].Text(), second[5].Text())
	}
	if res.Reason != ReasonStop {
		t.Fatalf("reason %s", res.Reason)
	}
}

func TestSteeringAfterTextStopContinuesTheRun(t *testing.T) {
	m := faux.New(faux.Text("first"), faux.Text("second"))
	pending := []ai.Message{}
	emit := func(e Event) {
		if e.Type == MessageEnd && e.Message.Role == ai.RoleAssistant && e.Message.Text() == "first" {
			pending = append(pending, ai.UserText("actually…", 2))
		}
	}
	steer := func() []ai.Message { q := pending; pending = nil; return q }
	follow := func() []ai.Message { t.Fatal("follow-up asked while steering was pending"); return nil }
	followCalls := 0
	res := Run(t.Context(), Config{Model: m, Emit: emit, Steering: steer, FollowUp: func() []ai.Message {
		followCalls++
		if len(pending) > 0 {
			return follow()
		}
		return nil
	}}, nil, prompt("go"))
	if roles(res.New()) != "user,assistant,user,assistant" || res.Steps != 2 || followCalls != 1 {
		t.Fatalf("transcript %s steps %d followCalls %d", roles(res.New()), res.Steps, followCalls)
	}
}

func TestFollowUpOnlyAtNaturalStop(t *testing.T) {
	m := faux.New(calls(call("a", "t", `{}`)), faux.Text("first done"), faux.Text("follow-up done"))
	asked := 0
	var takenAfter []string
	var last string
	emit := func(e Event) {
		if e.Type == MessageEnd {
			last = e.Message.Role + ":" + e.Message.Text()
		}
	}
	follow := func() []ai.Message {
		asked++
		takenAfter = append(takenAfter, last)
		if asked == 1 {
			return []ai.Message{ai.UserText("and now this", 2)}
		}
		return nil
	}
	res := Run(t.Context(), Config{Model: m, Emit: emit, FollowUp: follow, Tools: toolstest.Registry(t, sleeper("t"))}, nil, prompt("go"))
	if roles(res.New()) != "user,assistant,toolResult,assistant,user,assistant" {
		t.Fatalf("transcript %s", roles(res.New()))
	}
	if !slices.Equal(takenAfter, []string{"assistant:first done", "assistant:follow-up done"}) {
		t.Fatalf("follow-up asked after %v, want only after text stops", takenAfter)
	}
}

func TestPanickingToolBecomesErrorResult(t *testing.T) {
	boom := toolstest.Func{Name: "boom", Parameters: sleeperSchema, Fn: func(context.Context, tools.Call) (tools.Result, error) { panic("kaboom") }}
	m := faux.New(calls(call("a", "boom", `{}`)), faux.Text("ok"))
	res := Run(t.Context(), Config{Model: m, Tools: toolstest.Registry(t, boom)}, nil, prompt("go"))
	r := res.New()[2]
	if !r.IsError || !strings.Contains(r.Text(), "kaboom") || res.Reason != ReasonStop {
		t.Fatalf("result %+v reason %s", r, res.Reason)
	}
}

// panicExecutor does not recover, like a careless wrapper.
type panicExecutor struct{}

func (panicExecutor) Specs() []ai.ToolSpec { return nil }
func (panicExecutor) Execute(context.Context, ai.Content, func(tools.Result)) tools.Result {
	panic("wrapper bug")
}

func TestPanickingExecutorStillGivesOneResult(t *testing.T) {
	m := faux.New(calls(call("a", "x", `{}`)), faux.Text("ok"))
	res := Run(t.Context(), Config{Model: m, Tools: panicExecutor{}}, nil, prompt("go"))
	if r := res.New()[2]; !r.IsError || !strings.Contains(r.Text(), "wrapper bug") {
		t.Fatalf("result %+v", r)
	}
}

func TestUnserialisableDetailsBecomeStandardErrorResult(t *testing.T) {
	bad := toolstest.Func{Name: "bad", Parameters: sleeperSchema, Fn: func(context.Context, tools.Call) (tools.Result, error) {
		return tools.Result{Content: []ai.Content{ai.TextContent("did it")}, Details: map[string]any{"f": func() {}}}, nil
	}}
	m := faux.New(calls(call("id-7", "bad", `{}`)), faux.Text("ok"))
	res := Run(t.Context(), Config{Model: m, Tools: toolstest.Registry(t, bad)}, nil, prompt("go"))
	r := res.New()[2]
	if r.ToolCallID != "id-7" || r.ToolName != "bad" || !r.IsError || !strings.Contains(r.Text(), "cannot be recorded") || r.Details != nil {
		t.Fatalf("result %+v", r)
	}
	if res.Reason != ReasonStop {
		t.Fatalf("reason %s", res.Reason)
	}
}

func TestToolOutputIsMadeValidUTF8(t *testing.T) {
	bin := toolstest.Func{Name: "bin", Parameters: sleeperSchema, Fn: func(context.Context, tools.Call) (tools.Result, error) {
		return tools.TextResult("ok\xff\xfe end"), nil
	}}
	m := faux.New(calls(call("a", "bin", `{}`)), faux.Text("ok"))
	res := Run(t.Context(), Config{Model: m, Tools: toolstest.Registry(t, bin)}, nil, prompt("go"))
	if got := res.New()[2].Text(); got != "ok\uFFFD end" {
		t.Fatalf("got %q", got)
	}
}

func TestToolUpdatesAreEmitted(t *testing.T) {
	prog := toolstest.Func{Name: "prog", Parameters: sleeperSchema, Fn: func(_ context.Context, c tools.Call) (tools.Result, error) {
		c.Update(tools.TextResult("half"))
		return tools.TextResult("all"), nil
	}}
	m := faux.New(calls(call("a", "prog", `{}`)), faux.Text("ok"))
	rec := &recorder{}
	Run(t.Context(), Config{Model: m, Emit: rec.emit, Tools: toolstest.Registry(t, prog)}, nil, prompt("go"))
	var partial string
	for _, e := range rec.evs {
		if e.Type == ToolUpdate {
			partial = e.Result.Content[0].Text
		}
	}
	if partial != "half" {
		t.Fatalf("partial %q", partial)
	}
}

// brokenModel panics or ends without a terminal event.
type brokenModel struct{ panics bool }

func (b brokenModel) Stream(context.Context, *ai.Request) iter.Seq[ai.Event] {
	return func(yield func(ai.Event) bool) {
		if b.panics {
			panic("model bug")
		}
		yield(ai.Event{Type: ai.EventStart, Message: &ai.Message{Role: ai.RoleAssistant}})
	}
}

func TestBrokenModelsBecomeErrorMessages(t *testing.T) {
	for _, b := range []brokenModel{{panics: true}, {panics: false}} {
		rec := &recorder{}
		res := Run(t.Context(), Config{Model: b, Emit: rec.emit}, nil, prompt("go"))
		last := res.New()[1]
		if res.Reason != ReasonError || last.StopReason != ai.StopError || res.Err == nil {
			t.Fatalf("panics=%v: reason %s last %+v", b.panics, res.Reason, last)
		}
		if got := rec.types(); got[len(got)-1] != "agent_end" || !slices.Contains(got, "message_start:assistant") {
			t.Fatalf("panics=%v: events %v", b.panics, got)
		}
	}
}

func TestLengthStopIsReported(t *testing.T) {
	m := faux.New(faux.Response{Text: "cut sh", StopReason: "length"})
	res := Run(t.Context(), Config{Model: m}, nil, prompt("go"))
	if res.Reason != ReasonLength {
		t.Fatalf("reason %s", res.Reason)
	}
}

// retryModel fails once then succeeds, announcing the retry.
type retryModel struct{}

func (retryModel) Stream(ctx context.Context, _ *ai.Request) iter.Seq[ai.Event] {
	return func(yield func(ai.Event) bool) {
		b := ai.NewBuilder(faux.Info, 1, yield)
		b.Start()
		i, _ := b.TextStart()
		b.TextDelta(i, "garbage of attempt 1")
		if !yield(ai.Event{Type: ai.EventRetryStart, Retry: &ai.RetryInfo{Attempt: 1, MaxAttempts: 3, Delay: time.Second, ErrorMessage: "overloaded"}}) {
			return
		}
		b = ai.NewBuilder(faux.Info, 2, yield)
		b.Start()
		i, _ = b.TextStart()
		b.TextDelta(i, "good")
		b.TextEnd(i, "")
		yield(ai.Event{Type: ai.EventRetryEnd, Retry: &ai.RetryInfo{Attempt: 2, MaxAttempts: 3, Success: true}})
		b.Done(ai.StopStop)
	}
}

func TestRetryEventsAreForwardedAndOnlyTheFinalAttemptIsKept(t *testing.T) {
	rec := &recorder{}
	res := Run(t.Context(), Config{Model: retryModel{}, Emit: rec.emit}, nil, prompt("go"))
	got := rec.types()
	if !slices.Contains(got, "auto_retry_start") || !slices.Contains(got, "auto_retry_end") {
		t.Fatalf("events %v", got)
	}
	// Regression: attempt 2's deltas followed attempt 1's under one
	// message_start, so a consumer accumulating deltas showed both.
	if starts := strings.Count(strings.Join(got, " "), "message_start:assistant"); starts != 2 {
		t.Fatalf("message_start for the assistant %d times, want one per attempt", starts)
	}
	var text string
	for _, e := range rec.evs {
		switch {
		case e.Type == MessageStart:
			text = ""
		case e.Type == MessageUpdate && e.Stream.Type == ai.EventTextDelta:
			text += e.Stream.Delta
		}
	}
	if text != "good" {
		t.Fatalf("deltas since the last message_start: %q", text)
	}
	if final, _ := res.Final(); final.Text() != "good" {
		t.Fatalf("final %q", final.Text())
	}
}

func TestHistoryIsNotModified(t *testing.T) {
	history := []ai.Message{ai.UserText("old", 1), {Role: ai.RoleAssistant, Content: []ai.Content{ai.TextContent("old answer")}, StopReason: ai.StopStop}}
	m := faux.New(faux.Text("new"))
	res := Run(t.Context(), Config{Model: m}, history[:2:2], prompt("go"))
	if res.Start != 2 || roles(res.Messages) != "user,assistant,user,assistant" || len(history) != 2 {
		t.Fatalf("start %d messages %s", res.Start, roles(res.Messages))
	}
}

func TestContinueWithoutPromptUsesHistory(t *testing.T) {
	m := faux.New(faux.Text("answer"))
	res := Run(t.Context(), Config{Model: m}, prompt("pending question"), nil)
	if roles(res.New()) != "assistant" || m.Requests()[0].Messages[0].Text() != "pending question" {
		t.Fatalf("transcript %s", roles(res.Messages))
	}
}

// The shapes of pi 1.6's json.md: message_update with the cumulative
// usage, toolcall_start with id and toolName, tool_execution_end with
// durationMs when the tool ran, agent_end with willRetry, agent_settled,
// queue_update, compaction_start/compaction_end, retries counted as pi
// counts them (retries, not attempts).
func TestEventJSONShapes(t *testing.T) {
	msg := ai.UserText("hi", 5)
	usage := ai.Usage{Input: 100, Output: 2, TotalTokens: 102, Cost: ai.Cost{Input: 0.0003, Total: 0.0003}}
	const usageJSON = `{"input":100,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":102,"cost":{"input":0.0003,"output":0,"cacheRead":0,"cacheWrite":0,"total":0.0003}}`
	const zeroUsage = `{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}`
	call := ai.Content{Type: ai.TypeToolCall, ID: "call_1", Name: "read"}
	cases := []struct {
		ev   Event
		want string
	}{
		{Event{Type: AgentStart}, `{"type":"agent_start"}`},
		{Event{Type: MessageStart, Message: &msg}, `{"type":"message_start","message":{"role":"user","content":[{"type":"text","text":"hi"}],"timestamp":5}}`},
		{Event{Type: MessageUpdate, Stream: &ai.Event{Type: ai.EventTextDelta, Index: 1, Delta: "x"}},
			`{"type":"message_update","usage":` + zeroUsage + `,"assistantMessageEvent":{"type":"text_delta","contentIndex":1,"delta":"x"}}`},
		{Event{Type: MessageUpdate, Stream: &ai.Event{Type: ai.EventTextDelta, Index: 1, Delta: "x", Usage: &usage}},
			`{"type":"message_update","usage":` + usageJSON + `,"assistantMessageEvent":{"type":"text_delta","contentIndex":1,"delta":"x"}}`},
		{Event{Type: MessageUpdate, Stream: &ai.Event{Type: ai.EventToolCallStart, Index: 0, Block: &call, Usage: &usage}},
			`{"type":"message_update","usage":` + usageJSON + `,"assistantMessageEvent":{"type":"toolcall_start","contentIndex":0,"id":"call_1","toolName":"read"}}`},
		{Event{Type: ToolStart, ToolCallID: "c", ToolName: "read"}, `{"type":"tool_execution_start","toolCallId":"c","toolName":"read","args":{}}`},
		{Event{Type: ToolEnd, ToolCallID: "c", ToolName: "read", Result: &ToolOutput{Content: []ai.Content{ai.TextContent("r")}}, IsError: true},
			`{"type":"tool_execution_end","toolCallId":"c","toolName":"read","result":{"content":[{"type":"text","text":"r"}]},"isError":true}`},
		{Event{Type: ToolEnd, ToolCallID: "c", ToolName: "read", Result: &ToolOutput{Content: []ai.Content{}}, Duration: 22 * time.Millisecond, Timed: true},
			`{"type":"tool_execution_end","toolCallId":"c","toolName":"read","result":{"content":[]},"isError":false,"durationMs":22}`},
		{Event{Type: AgentEnd}, `{"type":"agent_end","messages":[],"willRetry":false}`},
		{Event{Type: AgentEnd, WillRetry: true}, `{"type":"agent_end","messages":[],"willRetry":true}`},
		{Event{Type: AgentSettled, Aborted: true}, `{"type":"agent_settled","aborted":true}`},
		{Event{Type: QueueUpdate, Steering: []string{"look at b"}}, `{"type":"queue_update","steering":["look at b"],"followUp":[]}`},
		{Event{Type: MessageEnd, Message: &ai.Message{Role: ai.RoleUser, Content: []ai.Content{ai.TextContent("a<b && c>d")}}},
			`{"type":"message_end","message":{"role":"user","content":[{"type":"text","text":"a<b && c>d"}],"timestamp":0}}`},
		{Event{Type: RetryStart, Retry: &ai.RetryInfo{Attempt: 1, MaxAttempts: 4, Delay: 1500 * time.Millisecond, ErrorMessage: "busy"}},
			`{"type":"auto_retry_start","attempt":1,"maxAttempts":3,"delayMs":1500,"errorMessage":"busy"}`},
		{Event{Type: RetryEnd, Retry: &ai.RetryInfo{Attempt: 2, MaxAttempts: 4, Success: true}}, `{"type":"auto_retry_end","success":true,"attempt":1}`},
		{Event{Type: CompactionStart, Compaction: &CompactionInfo{Reason: "threshold"}}, `{"type":"compaction_start","reason":"threshold"}`},
		{Event{Type: CompactionEnd, Compaction: &CompactionInfo{Reason: "threshold", Summary: "s", FirstKeptEntryID: "ab12cd34", TokensBefore: 9000,
			EstimatedTokensAfter: 1200, Details: json.RawMessage(`{"readFiles":[],"modifiedFiles":[]}`)}},
			`{"type":"compaction_end","reason":"threshold","result":{"summary":"s","firstKeptEntryId":"ab12cd34","tokensBefore":9000,"estimatedTokensAfter":1200,"details":{"readFiles":[],"modifiedFiles":[]}},"aborted":false,"willRetry":false}`},
		{Event{Type: CompactionEnd, Compaction: &CompactionInfo{ErrorMessage: "no", WillRetry: false}},
			`{"type":"compaction_end","aborted":false,"willRetry":false,"errorMessage":"no"}`},
		{Event{Type: ContextTrimmed, Trim: &TrimInfo{Reason: TrimCompactionFailed, ContextWindow: 200000, Turns: 12, Messages: 340,
			FirstDroppedEntryID: "aa000001", FirstKeptEntryID: "ab12cd34", Tokens: 120000, ErrorMessage: "summarizer down"}},
			`{"type":"context_trimmed","reason":"compactionFailed","contextWindow":200000,"turns":12,"messages":340,"firstDroppedEntryId":"aa000001","firstKeptEntryId":"ab12cd34","tokens":120000,"errorMessage":"summarizer down"}`},
	}
	var enc Encoder // one encoder for all: its usage cache must not leak into the next event
	for _, c := range cases {
		b, err := c.ev.MarshalJSON()
		if err != nil || string(b) != c.want {
			t.Errorf("%s:\n got %s (%v)\nwant %s", c.ev.Type, b, err, c.want)
		}
		if b, err := enc.Append(nil, c.ev); err != nil || string(b) != c.want {
			t.Errorf("%s through an Encoder:\n got %s (%v)\nwant %s", c.ev.Type, b, err, c.want)
		}
	}
}
