package loop

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"strings"
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/ai/faux"
	"gopi/pkg/tools/toolstest"
)

// costing gives r its usage; priced makes each such answer of 100 input
// and 50 output tokens cost one cent.
func costing(r faux.Response, in, out int64) faux.Response {
	r.Usage = &ai.Usage{Input: in, Output: out}
	return r
}

func priced(m *faux.Model) *faux.Model {
	info := faux.Info
	info.Prices = ai.Prices{Input: 50, Output: 100}
	return m.WithInfo(info)
}

// A budget is checked where the run would ask the model again: once an
// answer with tool calls passes it, the calls are skipped (each paired
// with a result) and the run ends with the limit as its reason.
func TestLimitsStopBeforeTheNextRequest(t *testing.T) {
	t.Parallel()
	tool := calls(call("c1", "t", `{"text":"a"}`))
	tests := []struct {
		name   string
		limits Limits
		reason Reason
		steps  int
		errHas string
	}{
		{"tokens", Limits{Tokens: 250}, ReasonBudgetTokens, 2, "spent 300 tokens, its budget is 250"},
		{"tokens exactly spent", Limits{Tokens: 150}, ReasonBudgetTokens, 1, "spent 150 tokens"},
		{"dollars", Limits{USD: 0.015}, ReasonBudgetUSD, 2, "spent $0.0200, its budget is $0.0150"},
		{"compaction counted", Limits{Tokens: 400, Extra: func() ai.Usage { return ai.Usage{Input: 120, CacheRead: 30} }}, ReasonBudgetTokens, 2, "spent 450 tokens"},
		{"not reached", Limits{Tokens: 10000, USD: 5}, ReasonStop, 3, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := priced(faux.New(costing(tool, 100, 50), costing(tool, 100, 50), costing(faux.Text("done"), 100, 50)))
			res := Run(t.Context(), Config{Model: m, Limits: tt.limits, Tools: toolstest.Registry(t, sleeper("t"))}, nil, prompt("go"))
			if res.Reason != tt.reason || res.Steps != tt.steps || len(m.Requests()) != tt.steps {
				t.Fatalf("reason %s steps %d requests %d; want %s after %d", res.Reason, res.Steps, len(m.Requests()), tt.reason, tt.steps)
			}
			if tt.errHas == "" {
				if res.Err != nil {
					t.Errorf("err %v", res.Err)
				}
				return
			}
			if res.Err == nil || !strings.Contains(res.Err.Error(), tt.errHas) {
				t.Errorf("err %v, want it to say %q", res.Err, tt.errHas)
			}
			last := res.New()[len(res.New())-1]
			if last.Role != ai.RoleToolResult || !last.IsError || !strings.Contains(last.Text(), "the run ended ("+string(tt.reason)+") before it ran") {
				t.Errorf("the skipped call's result: %s %q", last.Role, last.Text())
			}
		})
	}
}

// An answer that ends the run stands, over budget or not, and queued
// input is not taken once the budget is spent.
func TestLimitsKeepAFinalAnswer(t *testing.T) {
	t.Parallel()
	m := faux.New(costing(faux.Text("all done"), 500, 50))
	asked := 0
	res := Run(t.Context(), Config{Model: m, Limits: Limits{Tokens: 100},
		Steering: func() []ai.Message { asked++; return nil },
		FollowUp: func() []ai.Message { asked++; return nil }}, nil, prompt("go"))
	if res.Reason != ReasonStop || res.Err != nil || res.Steps != 1 {
		t.Fatalf("reason %s err %v steps %d", res.Reason, res.Err, res.Steps)
	}
	if asked != 1 { // the steering queue is asked once, before the first request
		t.Errorf("queues asked %d times after the budget was spent", asked-1)
	}
}

// budgetCutModel answers with a tool call whose stream a shared budget
// (a sub-agents' tree) cut short: an aborted message and the budget's
// error.
type budgetCutModel struct{}

func (budgetCutModel) Stream(context.Context, *ai.Request) iter.Seq[ai.Event] {
	return func(yield func(ai.Event) bool) {
		m := &ai.Message{Role: ai.RoleAssistant, StopReason: ai.StopAborted, ErrorMessage: "cut short",
			Content: []ai.Content{{Type: ai.TypeToolCall, ID: "c1", Name: "t", Arguments: json.RawMessage(`{}`)}}}
		if yield(ai.Event{Type: ai.EventStart, Message: m}) {
			yield(ai.Event{Type: ai.EventError, Message: m, Err: &BudgetError{ReasonBudgetUSD, errors.New("the run spent $2")}})
		}
	}
}

// An answer cut short by a budget the run shares ends the run with the
// budget's reason, not aborted, and its calls are skipped with results.
func TestBudgetCutAnswerEndsWithTheBudget(t *testing.T) {
	t.Parallel()
	res := Run(t.Context(), Config{Model: budgetCutModel{}, Tools: toolstest.Registry(t, sleeper("t"))}, nil, prompt("go"))
	if res.Reason != ReasonBudgetUSD || res.Err == nil || !strings.Contains(res.Err.Error(), "spent $2") {
		t.Fatalf("reason %s, err %v; want budgetUsd with the budget's error", res.Reason, res.Err)
	}
	if got := roles(res.New()); got != "user,assistant,toolResult" {
		t.Errorf("transcript %s, want the call paired with a skipped result", got)
	}
}
