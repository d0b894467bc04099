package mode

import (
	"fmt"

	"gopi/pkg/ai"
	"gopi/pkg/loop"
	"gopi/pkg/oneline"
)

// trimLine says what a request left out of the conversation, and why.
func trimLine(t *loop.TrimInfo) string {
	return "gopi: " + oneline.Trim(t)
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
