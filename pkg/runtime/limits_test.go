package runtime

import (
	"strings"
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/ai/faux"
	"gopi/pkg/loop"
)

// A run's token budget counts the summary a compaction asked for during
// the run, beside the run's own answers; the next run starts afresh.
func TestLimitsCountCompactionOfTheRun(t *testing.T) {
	t.Parallel()
	s, leafID := longSession(t, 10)          // compacts before the first answer
	summary := faux.Text("## Goal\nSUMMARY") // asked twice: the history and the split turn's prefix
	summary.Usage = &ai.Usage{Input: 450, Output: 50}
	answer := faux.Response{ToolCalls: []faux.ToolCall{{ID: "c1", Name: "t", Arguments: []byte(`{}`)}}, Usage: &ai.Usage{Input: 50, Output: 10}}
	m := faux.New(summary, summary, answer)
	cfg := Config{ActiveLeaf: leaf(leafID), Model: ai.Info{ID: "m", Provider: "faux", ContextWindow: 2400},
		Compaction: Compaction{ReserveTokens: 800, KeepRecentTokens: 300}, Limits: loop.Limits{Tokens: 1050}}
	r, err := New(cfg, Deps{Model: m, Session: s})
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Prompt(t.Context(), ai.UserText("next question", 2))
	if err != nil {
		t.Fatal(err)
	}
	if res.Reason != loop.ReasonBudgetTokens || res.Err == nil || !strings.Contains(res.Err.Error(), "spent 1060 tokens") {
		t.Fatalf("reason %s err %v; want the summaries' 1000 tokens and the answer's 60 counted", res.Reason, res.Err)
	}
	// The next run's budget does not carry the last run's compaction.
	m.Push(answer, faux.Response{Text: "fine", Usage: &ai.Usage{Input: 50, Output: 10}})
	res, err = r.Prompt(t.Context(), ai.UserText("go on", 3))
	if err != nil || res.Reason != loop.ReasonStop {
		t.Fatalf("second run: reason %s err %v", res.Reason, err)
	}
}

// A budget a compaction spent did not stop the request after it: the
// model was asked (and its tool ran) though nothing was left. The budget
// is checked after a compaction as before any request: the request is not
// sent, and the run ends with the budget's reason and a message saying why.
func TestBudgetSpentByCompactionStopsTheRequest(t *testing.T) {
	t.Parallel()
	s, leafID := longSession(t, 10) // compacts before the first answer
	summary := faux.Text("## Goal\nSUMMARY")
	summary.Usage = &ai.Usage{Input: 450, Output: 50}
	answer := faux.Response{ToolCalls: []faux.ToolCall{{ID: "c1", Name: "t", Arguments: []byte(`{}`)}}, Usage: &ai.Usage{Input: 50, Output: 10}}
	m := faux.New(summary, summary, answer)
	cfg := Config{ActiveLeaf: leaf(leafID), Model: ai.Info{ID: "m", Provider: "faux", ContextWindow: 2400},
		Compaction: Compaction{ReserveTokens: 800, KeepRecentTokens: 300}, Limits: loop.Limits{Tokens: 1000}}
	r, err := New(cfg, Deps{Model: m, Session: s})
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Prompt(t.Context(), ai.UserText("next question", 2))
	if err != nil {
		t.Fatal(err)
	}
	if res.Reason != loop.ReasonBudgetTokens || res.Err == nil || !strings.Contains(res.Err.Error(), "spent 1000 tokens") {
		t.Fatalf("reason %s err %v; want the summaries' 1000 tokens to stop the run", res.Reason, res.Err)
	}
	if n := len(m.Requests()); n != 2 {
		t.Fatalf("%d requests, want the 2 summary requests only", n)
	}
	if res.Steps != 0 || res.Usage.Input != 900 {
		t.Errorf("steps %d usage %+v, want no step and the summaries' usage", res.Steps, res.Usage)
	}
	final, _ := res.Final()
	if final.StopReason != ai.StopError || !strings.Contains(final.ErrorMessage, "the next request was not sent") {
		t.Errorf("last message %+v", final)
	}
}
