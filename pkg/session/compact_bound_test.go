package session

import (
	"strings"
	"testing"

	"gopi/pkg/ai"
)

// A history far bigger than the summarising model's window is summarised
// from its newest messages that fit MaxInputTokens, and the prompt says
// how many were left out: the request never exceeds the bound (it failed
// as an overflow on every resume of a huge session).
func TestCompactBoundsTheSummaryRequest(t *testing.T) {
	es := withPaths(turnMsgs(200, 4000)) // each turn ≈ 2,000 tokens
	model := &summarizer{text: "## Goal\nbounded"}
	opts := compactOpts()
	opts.MaxInputTokens = summaryOverhead + 10_000
	c, err := Compact(t.Context(), model, es, opts)
	if err != nil {
		t.Fatal(err)
	}
	text := ""
	for _, r := range model.reqs { // the history's, and a split turn's prefix
		if got := EstimateTokens(r.Messages[0]); got > opts.MaxInputTokens {
			t.Fatalf("summary request of ~%d tokens, bound %d", got, opts.MaxInputTokens)
		}
		if t := r.Messages[0].Content[0].Text; strings.Contains(t, "oldest messages of this conversation were too long to include") {
			text = t
		}
	}
	if text == "" {
		t.Fatal("no summary request says history was left out")
	}
	// the newest summarised turn is in it, the oldest is not
	if !strings.Contains(text, "q198 ") || strings.Contains(text, "q0 ") {
		t.Fatal("the request does not hold the newest history, or still holds the oldest")
	}
	if !strings.Contains(c.Summary, "bounded") || c.FirstKeptEntryID == "" {
		t.Fatalf("entry %+v", c)
	}

	// Unbounded (MaxInputTokens 0): everything goes, as pi sends it.
	model = &summarizer{text: "all"}
	if _, err := Compact(t.Context(), model, es, compactOpts()); err != nil {
		t.Fatal(err)
	}
	all := ""
	for _, r := range model.reqs {
		all += r.Messages[0].Content[0].Text
	}
	if !strings.Contains(all, "q0 ") || strings.Contains(all, "too long to include") {
		t.Fatal("an unbounded summary left history out")
	}
}

// Regression: a bound the whole history fits in still left the oldest
// message out (and said so), and a newest message larger than the bound
// left everything out, though the newest message goes whatever its size.
func TestCompactBoundKeepsWhatFitsAndTheNewest(t *testing.T) {
	es := withPaths(turnMsgs(8, 400)) // turn 7 is kept; turns 0 to 6 (28 messages) are summarised
	last := es[27].Message.Clone()    // the newest to summarise: larger than a bound of 1
	last.Content = []ai.Content{ai.TextContent("finished " + strings.Repeat("f", 400))}
	es[27].Message = &last
	for _, c := range []struct {
		name    string
		bound   int
		in, out []string // text the request holds, and does not
	}{
		{"everything fits", 1_000_000, []string{"q0 ", "q6 "}, []string{"too long to include"}},
		{"only the newest message goes", 1, []string{"[Assistant]: finished fff", "the 27 oldest messages"}, []string{"q0 ", "q6 "}},
	} {
		t.Run(c.name, func(t *testing.T) {
			model := &summarizer{text: "## Goal\nbounded"}
			opts := compactOpts()
			opts.MaxInputTokens = c.bound
			if _, err := Compact(t.Context(), model, es, opts); err != nil {
				t.Fatal(err)
			}
			all := ""
			for _, r := range model.reqs {
				all += r.Messages[0].Content[0].Text
			}
			for _, s := range c.in {
				if !strings.Contains(all, s) {
					t.Errorf("the request lacks %q", s)
				}
			}
			for _, s := range c.out {
				if strings.Contains(all, s) {
					t.Errorf("the request holds %q", s)
				}
			}
		})
	}
}
