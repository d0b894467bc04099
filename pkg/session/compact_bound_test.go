package session

import (
	"fmt"
	"strings"
	"testing"

	"gopi/pkg/ai"
)

// A history far bigger than the summarising model's window is summarised
// from its newest messages that fit MaxInputTokens, and the prompt says
// how many were left out: the request never exceeds the bound (it failed
// as an overflow on every resume of a huge session).
func TestCompactBoundsTheSummaryRequest(t *testing.T) {
	t.Parallel()
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

// MaxInputTokens keeps the newest messages that fit it, less the
// prompt's share (2,048 tokens, a quarter of a tiny window) and the
// previous summary's; the prompt says how many older ones it left out.
// The newest message goes whatever its size, and a history that fits is
// sent whole.
func TestCompactBoundKeepsTheNewestThatFit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		max      int
		previous int    // characters of a previous summary
		huge     string // the message estimated at 9,000 tokens, more than the bound
		omitted  int    // oldest messages left out, of q0 … q99
	}{
		{"2,048 for the prompt", 2048 + 8000, 0, "", 20},
		{"a previous summary", 2048 + 100 + 7999, 400, "", 21}, // 400 characters: 100 tokens
		{"a tiny window", 1000, 0, "", 93},
		{"everything fits", 2048 + 10_000, 0, "", 0},
		{"the newest alone is too big", 2048 + 8000, 0, "q99", 99},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b pathBuilder
			if tt.previous > 0 {
				b.compaction(strings.Repeat("p", tt.previous), nil, nil, false)
			}
			for i := range 100 {
				b.user(fmt.Sprint("q", i))
			}
			b.user("kept")
			model := &answerer{answer: func(*ai.Request) ai.Message { return textAnswer("S") }}
			estimate := func(m ai.Message) int {
				if tt.huge != "" && m.Text() == tt.huge {
					return 9000
				}
				return 100
			}
			_, err := Compact(t.Context(), model, b.es, CompactOptions{KeepRecentTokens: 100, Estimate: estimate, MaxInputTokens: tt.max})
			if err != nil {
				t.Fatal(err)
			}
			p := model.reqs[0].Messages[0].Text()
			first := fmt.Sprintf("<conversation>\n[User]: q%d\n", tt.omitted)
			note := fmt.Sprintf("Note: the %d oldest messages of this conversation were too long to include", tt.omitted)
			if !strings.HasPrefix(p, first) || !strings.Contains(p, "[User]: q99\n") || strings.Contains(p, "kept") {
				t.Errorf("request starts %.60q, want %q … q99", p, first)
			}
			if got := strings.Contains(p, "oldest messages"); got != (tt.omitted > 0) || tt.omitted > 0 && !strings.Contains(p, note) {
				t.Errorf("request:\n%s\nwant the note %q: %v", p[strings.Index(p, "</conversation>"):], note, tt.omitted > 0)
			}
		})
	}
}

// Regression: a bound the whole history fits in still left the oldest
// message out (and said so), and a newest message larger than the bound
// left everything out, though the newest message goes whatever its size.
func TestCompactBoundKeepsWhatFitsAndTheNewest(t *testing.T) {
	t.Parallel()
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
