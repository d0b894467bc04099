package runtime

import (
	"context"
	"iter"
	"strings"
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/ai/faux"
	"gopi/pkg/loop"
	"gopi/pkg/tools"
	"gopi/pkg/tools/toolstest"
)

// paidRetryModel fails the first attempt of its first request after the
// stream reported what the attempt spent, then lets next answer.
type paidRetryModel struct {
	next  ai.Model
	spent ai.Usage
	done  bool
}

func (m *paidRetryModel) Stream(ctx context.Context, req *ai.Request) iter.Seq[ai.Event] {
	return func(yield func(ai.Event) bool) {
		if !m.done {
			m.done = true
			first := ai.NewBuilder(faux.Info, 10, yield)
			if !first.Start() {
				return
			}
			if !yield(ai.Event{Type: ai.EventRetryStart, Retry: &ai.RetryInfo{Attempt: 1, MaxAttempts: 4, ErrorMessage: "overloaded (HTTP 529)", Usage: m.spent}}) {
				return
			}
		}
		for e := range m.next.Stream(ctx, req) {
			if !yield(e) {
				return
			}
		}
	}
}

// A retried attempt's usage was recorded as zero: the run's budget did
// not count it (a tool ran after the budget was spent) and its usage and
// cost were under-reported. The failed attempt's entry carries its usage,
// and the run's budget, usage and per-model usage count it.
func TestRetriedAttemptUsageCounts(t *testing.T) {
	t.Parallel()
	s := store(t)
	answer := faux.Response{ToolCalls: []faux.ToolCall{{ID: "c1", Name: "note", Arguments: []byte(`{}`)}}, Usage: &ai.Usage{Input: 50, Output: 10}}
	spent := ai.Usage{Input: 950, Output: 20, Cost: ai.Cost{Total: 0.5}}
	model := &paidRetryModel{next: faux.New(answer), spent: spent}
	ran := false
	note := toolstest.Func{Name: "note", Fn: func(context.Context, tools.Call) (tools.Result, error) {
		ran = true
		return tools.TextResult("noted"), nil
	}}
	r, err := New(Config{Model: faux.Info, Limits: loop.Limits{Tokens: 1000}}, Deps{Model: model, Session: s, Tools: toolstest.Registry(t, note)})
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Prompt(t.Context(), ai.UserText("hello", 1))
	if err != nil {
		t.Fatal(err)
	}
	if ran {
		t.Error("the tool ran after the budget was spent")
	}
	if res.Reason != loop.ReasonBudgetTokens || !strings.Contains(res.Err.Error(), "spent 1030 tokens") {
		t.Errorf("reason %s err %v; want the failed attempt's 970 tokens counted with the answer's 60", res.Reason, res.Err)
	}
	if res.Usage.Input != 1000 || res.Usage.Output != 30 || res.Usage.Cost.Total < 0.5 {
		t.Errorf("usage %+v, want the failed attempt's in it", res.Usage)
	}
	if len(res.ByModel) != 1 || res.ByModel[0].Usage.Input != 1000 {
		t.Errorf("by model %+v", res.ByModel)
	}
	var recorded *ai.Message
	for _, e := range s.Entries() {
		if e.Message != nil && e.Message.StopReason == ai.StopError {
			recorded = e.Message
		}
	}
	if recorded == nil || recorded.Usage != spent {
		t.Errorf("failed attempt's entry %+v, want usage %+v", recorded, spent)
	}
}
