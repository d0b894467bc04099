package agent

import (
	"context"
	"encoding/json"
	"iter"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"gopi/pkg/ai"
	"gopi/pkg/ai/faux"
	"gopi/pkg/loop"
	"gopi/pkg/tools"
	"gopi/pkg/tools/toolstest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// waitTool sleeps args.ms or until cancelled.
func waitTool(name string) toolstest.Func {
	return toolstest.Func{Name: name, Fn: func(ctx context.Context, call tools.Call) (tools.Result, error) {
		var a struct{ Ms int }
		_ = json.Unmarshal(call.Args, &a)
		select {
		case <-time.After(time.Duration(a.Ms) * time.Millisecond):
			return tools.TextResult(name + " done"), nil
		case <-ctx.Done():
			return tools.ErrorResult(name + " cancelled"), nil
		}
	}}
}

func callResp(calls ...faux.ToolCall) faux.Response { return faux.Response{ToolCalls: calls} }

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

func texts(ms []ai.Message) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Text())
	}
	return out
}

// log records event names ("run<N>:<type>") for one subscriber.
type eventLog struct {
	mu  sync.Mutex
	evs []string
}

func (l *eventLog) add(e Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.evs = append(l.evs, runTag(e))
}

func (l *eventLog) list() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.evs...)
}

func runTag(e Event) string {
	return "run" + string(rune('0'+e.RunID)) + ":" + string(e.Type)
}

// lifecycle keeps only agent_start and run_end.
func lifecycle(evs []string) []string {
	var out []string
	for _, e := range evs {
		if strings.HasSuffix(e, ":agent_start") || strings.HasSuffix(e, ":run_end") {
			out = append(out, e)
		}
	}
	return out
}

// ctxModel records the context of each request and delegates.
type ctxModel struct {
	inner ai.Model
	mu    sync.Mutex
	ctxs  []context.Context
}

func (m *ctxModel) Stream(ctx context.Context, req *ai.Request) iter.Seq[ai.Event] {
	m.mu.Lock()
	m.ctxs = append(m.ctxs, ctx)
	m.mu.Unlock()
	return m.inner.Stream(ctx, req)
}

// mustPrompt runs a prompt to its end; a run stuck past the failsafe
// fails the test instead of hanging it.
func mustPrompt(t *testing.T, a *Agent, text string) loop.Result {
	t.Helper()
	got := within(t, "Prompt("+text+")", func() outcome {
		res, err := a.PromptText(t.Context(), text)
		return outcome{res, err}
	})
	if got.err != nil {
		t.Fatal(got.err)
	}
	return got.res
}
