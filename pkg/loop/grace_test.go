package loop

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"gopi/pkg/ai/faux"
	"gopi/pkg/tools"
	"gopi/pkg/tools/toolstest"
)

// stuckTool never looks at its context: it returns (with an update first)
// only when release is closed, like a read blocked on a FIFO.
func stuckTool(release <-chan struct{}) toolstest.Func {
	return toolstest.Func{Name: "stuck", Parameters: sleeperSchema, Fn: func(_ context.Context, c tools.Call) (tools.Result, error) {
		<-release
		c.Update(tools.TextResult("late update"))
		return tools.TextResult("late result"), nil
	}}
}

// Regression: runTools waited for every tool, so a tool that ignored its
// context held a cancelled run (--timeout, SIGINT) forever.
func TestCancelledRunStopsWaitingForAToolThatIgnoresIt(t *testing.T) {
	before := goleak.IgnoreCurrent()
	release := make(chan struct{})
	released := false
	defer func() {
		if !released {
			close(release)
		}
	}()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	m := faux.New(calls(call("a", "t", `{"ms":100000}`), call("b", "stuck", `{}`)), faux.Text("never asked"))
	rec := &recorder{}
	emit := func(e Event) {
		rec.emit(e)
		if e.Type == ToolStart && e.ToolCallID == "b" {
			go cancel()
		}
	}
	cfg := Config{Model: m, Emit: emit, ToolGrace: time.Second,
		Tools: toolstest.Registry(t, sleeper("t"), stuckTool(release))}
	res := runBounded(t, ctx, cfg)

	if res.Reason != ReasonAborted || len(m.Requests()) != 1 {
		t.Fatalf("reason %s requests %d", res.Reason, len(m.Requests()))
	}
	msgs := res.New()
	if roles(msgs) != "user,assistant,toolResult,toolResult" {
		t.Fatalf("transcript %s", roles(msgs))
	}
	if a := msgs[2]; a.ToolCallID != "a" || a.Text() != "t: cancelled" {
		t.Fatalf("the tool that stopped in time keeps its own result: %+v", a)
	}
	b := msgs[3]
	if b.ToolCallID != "b" || !b.IsError || !strings.Contains(b.Text(), "did not stop within 1s") {
		t.Fatalf("the stuck call's result: %+v", b)
	}
	ends := toolEnds(rec)
	if ends["a"] != 1 || ends["b"] != 1 {
		t.Fatalf("tool_execution_end per call: %v", ends)
	}
	rec.mu.Lock()
	for _, e := range rec.evs {
		if e.Type == ToolEnd && e.ToolCallID == "b" && (!e.IsError || e.Result.Content[0].Text != b.Text()) {
			t.Errorf("the stuck call's tool_execution_end: isError %v %+v", e.IsError, e.Result)
		}
	}
	rec.mu.Unlock()
	n := len(rec.types())

	// The tool comes back late: it adds no event and changes no result.
	close(release)
	released = true
	awaitNoGoroutines(t, before)
	if got := len(rec.types()); got != n {
		t.Fatalf("events after the run ended: %v", rec.types()[n:])
	}
	if msgs[3].Text() != b.Text() || res.Messages[len(res.Messages)-1].Text() != b.Text() {
		t.Fatal("the late result replaced the aborted one")
	}
}

func TestToolsThatStopInTimeAreAwaitedAfterCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	// The tool takes a moment to notice: the grace period covers it.
	slowToNotice := toolstest.Func{Name: "slow", Parameters: sleeperSchema, Fn: func(ctx context.Context, _ tools.Call) (tools.Result, error) {
		<-ctx.Done()
		time.Sleep(20 * time.Millisecond)
		return tools.ErrorResult("slow: stopped"), nil
	}}
	m := faux.New(calls(call("a", "slow", `{}`)))
	emit := func(e Event) {
		if e.Type == ToolStart {
			go cancel()
		}
	}
	res := runBounded(t, ctx, Config{Model: m, Emit: emit, ToolGrace: time.Minute, Tools: toolstest.Registry(t, slowToNotice)})
	if got := res.New()[2].Text(); res.Reason != ReasonAborted || got != "slow: stopped" {
		t.Fatalf("reason %s result %q", res.Reason, got)
	}
}

// runBounded runs the loop; a run that does not end fails the test
// instead of hanging it.
func runBounded(t *testing.T, ctx context.Context, cfg Config) Result {
	t.Helper()
	out := make(chan Result, 1)
	go func() { out <- Run(ctx, cfg, nil, prompt("go")) }()
	select {
	case res := <-out:
		return res
	case <-time.After(30 * time.Second):
		t.Fatal("the cancelled run did not end")
	}
	return Result{}
}

// awaitNoGoroutines waits, with a generous bound, until every goroutine
// started since before has ended.
func awaitNoGoroutines(t *testing.T, before goleak.Option) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := goleak.Find(before)
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal(err)
		}
	}
}

func toolEnds(rec *recorder) map[string]int {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	ends := map[string]int{}
	for _, e := range rec.evs {
		if e.Type == ToolEnd {
			ends[e.ToolCallID]++
		}
	}
	return ends
}
