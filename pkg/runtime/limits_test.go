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
		Compaction: Compaction{ReserveTokens: 800, KeepRecentTokens: 300}, Limits: loop.Limits{Tokens: 1000}}
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
