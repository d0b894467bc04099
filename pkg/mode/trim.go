package mode

import (
	"fmt"

	"gopi/pkg/ai"
	"gopi/pkg/loop"
)

// trimLine says what a request left out of the conversation, and why.
func trimLine(t *loop.TrimInfo) string {
	return "gopi: " + TrimText(t)
}

// TrimText says what a request left out of the conversation and why,
// without trimLine's "gopi: ".
func TrimText(t *loop.TrimInfo) string {
	why := "because compaction is disabled"
	switch t.Reason {
	case loop.TrimCompactionFailed:
		why = "because compaction failed: " + t.ErrorMessage
	case loop.TrimAfterCompaction:
		why = "even after compaction"
	}
	turns := "turn"
	if t.Turns != 1 {
		turns = fmt.Sprintf("%d turns", t.Turns)
	}
	messages := "messages"
	if t.Messages == 1 {
		messages = "message"
	}
	return fmt.Sprintf("the conversation does not fit the model's %d-token window; left out the oldest %s (%d %s) %s",
		t.ContextWindow, turns, t.Messages, messages, why)
}

// compactionLine says a compaction summarised the conversation: how many
// tokens it replaced, about how many are left, and what the summary cost
// (the run's usage counts it too); "" for one that failed or was
// cancelled, which the trimmed-context line or the run's end reports.
func compactionLine(c *loop.CompactionInfo) string {
	if c == nil || c.Summary == "" || c.ErrorMessage != "" || c.Aborted {
		return ""
	}
	var spent ai.Usage
	if c.Usage != nil {
		spent = *c.Usage
	}
	why := "it passed the compaction threshold"
	if c.Reason == "overflow" {
		why = "the model said it was too long"
	}
	return fmt.Sprintf("gopi: compacted the conversation (%s): %d tokens summarised, about %d left; the summary took %d tokens, $%.4f",
		why, c.TokensBefore, c.EstimatedTokensAfter, spent.Input+spent.Output+spent.CacheRead+spent.CacheWrite, spent.Cost.Total)
}
