package session

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strings"
	"sync"
	"testing"
	"time"

	"gopi/internal/pijson"
	"gopi/pkg/ai"
)

// pathBuilder makes a path of entries e01, e02, … each under the one
// before.
type pathBuilder struct{ es []Entry }

func (b *pathBuilder) add(e Entry) string {
	e.ID = fmt.Sprintf("e%02d", len(b.es)+1)
	e.ParentID = nil
	if len(b.es) > 0 {
		e.ParentID = Ref(b.es[len(b.es)-1].ID)
	}
	b.es = append(b.es, e)
	return e.ID
}

func (b *pathBuilder) msg(m ai.Message) string { return b.add(Entry{Type: TypeMessage, Message: &m}) }
func (b *pathBuilder) user(text string) string { return b.msg(ai.UserText(text, 1)) }
func (b *pathBuilder) answer(text string) string {
	return b.msg(ai.Message{Role: ai.RoleAssistant, Content: []ai.Content{ai.TextContent(text)}})
}

// call adds an assistant tool call of tool on path and its result.
func (b *pathBuilder) call(tool, path string) {
	id := fmt.Sprint("c", len(b.es))
	b.msg(ai.Message{Role: ai.RoleAssistant, Content: []ai.Content{ai.ToolCallContent(id, tool, []byte(`{"path":"`+path+`"}`))}})
	b.msg(ai.Message{Role: ai.RoleToolResult, ToolCallID: id, Content: []ai.Content{ai.TextContent("ok " + path)}})
}

// compaction adds a compaction entry with summary and, unless both are
// nil, its file lists.
func (b *pathBuilder) compaction(summary string, read, modified []string, fromHook bool) string {
	e := Entry{Type: TypeCompaction, Summary: summary, FirstKeptEntryID: "e01"}
	if read != nil || modified != nil {
		d, err := pijson.Marshal(CompactionDetails{ReadFiles: read, ModifiedFiles: modified})
		if err != nil {
			panic(err)
		}
		e.Details = d
	}
	if fromHook {
		e.FromHook = ptr(true)
	}
	return b.add(e)
}

// hundred estimates every message at 100 tokens, so cut points and
// bounds fall where a test puts them.
func hundred(ai.Message) int { return 100 }

// answerer is a model whose answer to a request is decided by answer.
type answerer struct {
	mu     sync.Mutex
	reqs   []*ai.Request
	answer func(req *ai.Request) ai.Message
}

func (a *answerer) Stream(_ context.Context, req *ai.Request) iter.Seq[ai.Event] {
	a.mu.Lock()
	a.reqs = append(a.reqs, req)
	a.mu.Unlock()
	m := a.answer(req)
	m.Role = ai.RoleAssistant
	return func(yield func(ai.Event) bool) {
		t := ai.EventDone
		if m.StopReason == ai.StopError || m.StopReason == ai.StopAborted {
			t = ai.EventError // an error message with no Err: the message alone says it failed
		}
		yield(ai.Event{Type: t, Message: &m})
	}
}

// request returns the one request sent with maxTokens.
func (a *answerer) request(t *testing.T, maxTokens int) *ai.Request {
	t.Helper()
	var found *ai.Request
	for _, r := range a.reqs {
		if r.MaxTokens == maxTokens {
			if found != nil {
				t.Fatalf("two requests with max tokens %d", maxTokens)
			}
			found = r
		}
	}
	if found == nil {
		t.Fatalf("no request with max tokens %d among %d", maxTokens, len(a.reqs))
	}
	return found
}

func textAnswer(s string) ai.Message {
	return ai.Message{Content: []ai.Content{ai.TextContent(s)}, StopReason: ai.StopStop}
}

// byMaxTokens answers a request with the text its max tokens names.
func byMaxTokens(answers map[int]string) *answerer {
	return &answerer{answer: func(req *ai.Request) ai.Message {
		s, ok := answers[req.MaxTokens]
		if !ok {
			return ai.Message{StopReason: ai.StopError, ErrorMessage: fmt.Sprintf("unexpected max tokens %d", req.MaxTokens)}
		}
		return textAnswer(s)
	}}
}

// splitTurnPath is two turns, the second too big to keep whole: the cut
// falls inside it, at its second tool call (e08), with a keep of 250.
func splitTurnPath() []Entry {
	var b pathBuilder
	b.user("first question")  // e01
	b.call("read", "a.go")    // e02, e03
	b.answer("done one")      // e04
	b.user("second question") // e05: the split turn starts here
	b.call("edit", "b.go")    // e06, e07
	b.call("write", "c.go")   // e08 (first kept), e09
	b.answer("done two")      // e10
	return b.es
}

// A turn split by the cut gets its own summary beside the history
// before it: two requests, the history's and the turn prefix's, each
// with its own prompt, size and options, merged into one summary that
// lists the files of both parts and none of the kept part.
func TestCompactSplitTurnKeepsTheHistoryBeforeIt(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		opts    CompactOptions
		history int // max tokens of the history request
		prefix  int // … and of the turn prefix's
	}{
		{"defaults", CompactOptions{}, 13107, 8192},
		{"reserve, reasoning and focus", CompactOptions{ReserveTokens: 1000, Reasoning: true, CustomInstructions: "mind the tests"}, 800, 500},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			es := splitTurnPath()
			model := byMaxTokens(map[int]string{tt.history: "HISTORY", tt.prefix: "PREFIX"})
			opts := tt.opts
			opts.KeepRecentTokens, opts.Estimate = 250, hundred
			opts.Now = func() time.Time { return time.UnixMilli(77) }
			c, err := Compact(t.Context(), model, es, opts)
			if err != nil {
				t.Fatal(err)
			}
			want := "HISTORY\n\n---\n\n**Turn Context (split turn):**\n\nPREFIX" +
				"\n\n<read-files>\na.go\n</read-files>\n\n<modified-files>\nb.go\n</modified-files>"
			if c.Summary != want {
				t.Errorf("summary\n%q\nwant\n%q", c.Summary, want)
			}
			if c.Type != TypeCompaction || c.FirstKeptEntryID != "e08" || c.Parent() != "e10" || c.TokensBefore != 1000 {
				t.Errorf("entry: type %s, first kept %s, parent %s, tokens before %d; want compaction, e08, e10, 1000",
					c.Type, c.FirstKeptEntryID, c.Parent(), c.TokensBefore)
			}
			if got := string(c.Details); got != `{"readFiles":["a.go"],"modifiedFiles":["b.go"]}` {
				t.Errorf("details %s", got)
			}
			if len(model.reqs) != 2 {
				t.Fatalf("%d requests, want 2", len(model.reqs))
			}
			history := model.request(t, tt.history)
			prefix := model.request(t, tt.prefix)
			for _, r := range []*ai.Request{history, prefix} {
				if r.SystemPrompt != SummarizationSystemPrompt || len(r.Messages) != 1 ||
					r.Messages[0].Role != ai.RoleUser || r.Messages[0].Timestamp != 77 {
					t.Errorf("request: system %.40q, messages %+v", r.SystemPrompt, r.Messages)
				}
			}
			hp, pp := history.Messages[0].Text(), prefix.Messages[0].Text()
			wantTail := summarizationPrompt
			if opts.CustomInstructions != "" {
				wantTail += "\n\nAdditional focus: " + opts.CustomInstructions
			}
			if !strings.HasPrefix(hp, "<conversation>\n[User]: first question\n") || !strings.Contains(hp, `read(path="a.go")`) ||
				strings.Contains(hp, "second question") || !strings.HasSuffix(hp, "</conversation>\n\n"+wantTail) {
				t.Errorf("history request:\n%s", hp)
			}
			if !strings.HasPrefix(pp, "<conversation>\n[User]: second question\n") || !strings.Contains(pp, `edit(path="b.go")`) ||
				strings.Contains(pp, "first question") || strings.Contains(pp, "c.go") || !strings.HasSuffix(pp, "</conversation>\n\n"+turnPrefixPrompt) {
				t.Errorf("turn prefix request:\n%s", pp)
			}
			wantThinking := ai.ThinkingLevel("")
			if opts.Reasoning {
				wantThinking = ai.ThinkingHigh
			}
			if history.Thinking != wantThinking || prefix.Thinking != "" {
				t.Errorf("thinking: history %q, prefix %q; want %q and none", history.Thinking, prefix.Thinking, wantThinking)
			}
		})
	}
}

// Either request of a split turn failing fails the compaction.
func TestCompactSplitTurnRequestFails(t *testing.T) {
	t.Parallel()
	for _, failing := range []int{13107, 8192} {
		model := &answerer{answer: func(req *ai.Request) ai.Message {
			if req.MaxTokens == failing {
				return ai.Message{StopReason: ai.StopError, ErrorMessage: "quota exceeded"}
			}
			return textAnswer("fine")
		}}
		_, err := Compact(t.Context(), model, splitTurnPath(), CompactOptions{KeepRecentTokens: 250, Estimate: hundred})
		if err == nil || err.Error() != "summarization failed: quota exceeded" {
			t.Errorf("request of %d failing: %v, want the summarization to fail with its message", failing, err)
		}
	}
}

// afterCompactionPath is an old turn, a compaction whose file lists are
// read, modified, then a turn that is summarised (it reads new.go and
// edits both.go) and a last turn that is kept (e11).
func afterCompactionPath(read, modified []string, fromHook bool) []Entry {
	var b pathBuilder
	b.user("before the compaction") // e01
	b.call("read", "ancient.go")    // e02, e03
	b.compaction("S1", read, modified, fromHook)
	b.user("third question") // e05
	b.call("read", "new.go") // e06, e07
	b.call("edit", "both.go")
	b.answer("done three")    // e10
	b.user("fourth question") // e11
	b.answer("done four")
	return b.es
}

// A compaction after another updates its summary and carries its file
// lists over, unless an extension made it (pi keeps no lists of those);
// nothing before it is summarised again.
func TestCompactCarriesThePreviousCompaction(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name           string
		path           []Entry
		read, modified string
	}{
		{"lists carried", afterCompactionPath([]string{"old.go", "both.go"}, []string{"mod.go"}, false),
			"new.go\nold.go", "both.go\nmod.go"},
		{"made by an extension", afterCompactionPath([]string{"old.go"}, []string{"mod.go"}, true), "new.go", "both.go"},
		{"no lists", afterCompactionPath(nil, nil, false), "new.go", "both.go"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := &answerer{answer: func(*ai.Request) ai.Message { return textAnswer("S2") }}
			c, err := Compact(t.Context(), model, tt.path, CompactOptions{KeepRecentTokens: 150, Estimate: hundred})
			if err != nil {
				t.Fatal(err)
			}
			want := "S2\n\n<read-files>\n" + tt.read + "\n</read-files>\n\n<modified-files>\n" + tt.modified + "\n</modified-files>"
			if c.Summary != want {
				t.Errorf("summary\n%s\nwant\n%s", c.Summary, want)
			}
			d, ok := c.CompactionInfo()
			if !ok || strings.Join(d.ReadFiles, "\n") != tt.read || strings.Join(d.ModifiedFiles, "\n") != tt.modified {
				t.Errorf("details %s", c.Details)
			}
			// the compaction and the 8 messages after it
			if c.FirstKeptEntryID != "e11" || c.TokensBefore != 900 {
				t.Errorf("first kept %s, tokens before %d; want e11, 900", c.FirstKeptEntryID, c.TokensBefore)
			}
			if len(model.reqs) != 1 {
				t.Fatalf("%d requests", len(model.reqs))
			}
			p := model.reqs[0].Messages[0].Text()
			if !strings.HasPrefix(p, "<conversation>\n[User]: third question\n") || strings.Contains(p, "before the compaction") ||
				strings.Contains(p, "fourth question") ||
				!strings.HasSuffix(p, "</conversation>\n\n<previous-summary>\nS1\n</previous-summary>\n\n"+updateSummarizationPrompt) {
				t.Errorf("request:\n%s", p)
			}
		})
	}
}

// Of two earlier compactions, the newer one is the one updated.
func TestCompactUpdatesTheNewestCompaction(t *testing.T) {
	t.Parallel()
	var b pathBuilder
	b.user("one")
	b.compaction("OLDEST", []string{"oldest.go"}, nil, false)
	b.user("two")
	b.answer("a")
	b.compaction("NEWER", []string{"newer.go"}, nil, false)
	b.user("three")
	b.answer("b")
	b.user("four")
	model := &answerer{answer: func(*ai.Request) ai.Message { return textAnswer("S") }}
	c, err := Compact(t.Context(), model, b.es, CompactOptions{KeepRecentTokens: 100, Estimate: hundred})
	if err != nil {
		t.Fatal(err)
	}
	p := model.reqs[0].Messages[0].Text()
	if !strings.Contains(p, "<previous-summary>\nNEWER\n</previous-summary>") || strings.Contains(p, "OLDEST") ||
		!strings.HasPrefix(p, "<conversation>\n[User]: three\n") {
		t.Errorf("request:\n%s", p)
	}
	if d, _ := c.CompactionInfo(); strings.Join(d.ReadFiles, ",") != "newer.go" {
		t.Errorf("details %s, want newer.go only", c.Details)
	}
	if c.FirstKeptEntryID != "e08" || c.TokensBefore != 400 {
		t.Errorf("first kept %s, tokens before %d", c.FirstKeptEntryID, c.TokensBefore)
	}
}

// Nothing to compact: no path, a path ending with a compaction, or one
// whose part after the last compaction all fits the recent tokens.
func TestCompactNothingToCompact(t *testing.T) {
	t.Parallel()
	var b pathBuilder
	b.user("one")
	b.answer("two")
	b.compaction("S", nil, nil, false)
	ended := append([]Entry(nil), b.es...)
	b.user("three")
	b.answer("four")
	tests := []struct {
		name string
		path []Entry
		msg  string
	}{
		{"no path", nil, "the path ends with a compaction"},
		{"ends with a compaction", ended, "the path ends with a compaction"},
		{"all fits", b.es, "everything after the last compaction fits in 5000 recent tokens"},
	}
	for _, tt := range tests {
		model := &answerer{answer: func(*ai.Request) ai.Message { return textAnswer("S") }}
		_, err := Compact(t.Context(), model, tt.path, CompactOptions{KeepRecentTokens: 5000, Estimate: hundred})
		if !errors.Is(err, ErrNothingToCompact) || !strings.Contains(err.Error(), tt.msg) || len(model.reqs) != 0 {
			t.Errorf("%s: %v after %d requests, want ErrNothingToCompact saying %q", tt.name, err, len(model.reqs), tt.msg)
		}
	}
}

// The summary is the answer's text blocks joined by newlines; an answer
// that stopped with an error or was aborted fails with its message.
func TestCompactAnswer(t *testing.T) {
	t.Parallel()
	var b pathBuilder
	b.user("one")
	b.answer("two")
	b.user("three")
	tests := []struct {
		name    string
		answer  ai.Message
		summary string
		err     string
	}{
		{"text blocks", ai.Message{StopReason: ai.StopStop, Content: []ai.Content{{Type: ai.TypeThinking, Thinking: "hmm"},
			ai.TextContent("A"), ai.ToolCallContent("x", "read", []byte(`{}`)), ai.TextContent("B")}}, "A\nB", ""},
		{"error", ai.Message{StopReason: ai.StopError, ErrorMessage: "quota exceeded"}, "", "summarization failed: quota exceeded"},
		{"aborted", ai.Message{StopReason: ai.StopAborted, ErrorMessage: "aborted"}, "", "summarization failed: aborted"},
	}
	for _, tt := range tests {
		model := &answerer{answer: func(*ai.Request) ai.Message { return tt.answer }}
		c, err := Compact(t.Context(), model, b.es, CompactOptions{KeepRecentTokens: 100, Estimate: hundred})
		switch {
		case tt.err != "" && (err == nil || err.Error() != tt.err):
			t.Errorf("%s: %v, want %q", tt.name, err, tt.err)
		case tt.err == "" && (err != nil || c.Summary != tt.summary):
			t.Errorf("%s: summary %q, %v; want %q", tt.name, c.Summary, err, tt.summary)
		}
	}
}

// The tokens before a compaction are pi's estimate of the context: the
// last usable answer's usage (its total, else the sum of its parts) and
// estimates of the messages after it; aborted and failed answers'
// usage does not count, and entries that are not messages cost nothing.
func TestCompactTokensBefore(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		usage ai.Usage
		want  int64
	}{
		{"total", ai.Usage{Input: 1, Output: 2, TotalTokens: 5000}, 5000 + 500},
		{"sum of the parts", ai.Usage{Input: 1000, Output: 200, CacheRead: 30, CacheWrite: 4}, 1234 + 500},
		{"no usage", ai.Usage{}, 700},
	}
	for _, tt := range tests {
		var b pathBuilder
		b.user("one")
		b.msg(ai.Message{Role: ai.RoleAssistant, Content: []ai.Content{ai.TextContent("two")}, Usage: tt.usage})
		b.add(ModelChangeEntry("", "p", "m"))
		b.user("three")
		b.msg(ai.Message{Role: ai.RoleAssistant, StopReason: ai.StopAborted, Usage: ai.Usage{TotalTokens: 90_000}})
		b.msg(ai.Message{Role: ai.RoleAssistant, StopReason: ai.StopError, Usage: ai.Usage{TotalTokens: 80_000}})
		b.user("four")
		b.answer("five")
		model := &answerer{answer: func(*ai.Request) ai.Message { return textAnswer("S") }}
		c, err := Compact(t.Context(), model, b.es, CompactOptions{KeepRecentTokens: 150, Estimate: hundred})
		if err != nil {
			t.Fatal(err)
		}
		if c.TokensBefore != tt.want {
			t.Errorf("%s: tokens before %d, want %d", tt.name, c.TokensBefore, tt.want)
		}
	}
}

// ContextTokens counts from the last compaction: its summary, then the
// messages after it.
func TestContextTokensFromTheLastCompaction(t *testing.T) {
	t.Parallel()
	var b pathBuilder
	b.msg(ai.Message{Role: ai.RoleAssistant, Content: []ai.Content{ai.TextContent("old")}, Usage: ai.Usage{TotalTokens: 99_999}})
	b.compaction("first summary", nil, nil, false)
	b.user("between")
	b.compaction(strings.Repeat("s", 400), nil, nil, false)
	b.user(strings.Repeat("u", 40))
	b.answer(strings.Repeat("a", 8))
	summary := ai.UserText(CompactionSummaryPrefix+strings.Repeat("s", 400)+CompactionSummarySuffix, 0)
	want := EstimateTokens(summary) + 10 + 2
	if got := ContextTokens(b.es); got != want || want <= 112 {
		t.Errorf("ContextTokens %d, want %d", got, want)
	}
}

// ShouldCompact is pi's threshold: past window minus reserve, reserve 0
// meaning the default, and never without a window.
func TestShouldCompactThreshold(t *testing.T) {
	t.Parallel()
	tests := []struct {
		tokens, window, reserve int
		want                    bool
	}{
		{1000 - 100, 1000, 100, false},
		{1000 - 100 + 1, 1000, 100, true},
		{200_000 - DefaultReserveTokens, 200_000, 0, false},
		{200_000 - DefaultReserveTokens + 1, 200_000, 0, true},
		{200_000 - DefaultReserveTokens + 1, 200_000, -5, true},
		{5, 0, 1, false},
		{0, 0, -1, false},
	}
	for _, tt := range tests {
		if got := ShouldCompact(tt.tokens, tt.window, tt.reserve); got != tt.want {
			t.Errorf("ShouldCompact(%d, %d, %d) = %v, want %v", tt.tokens, tt.window, tt.reserve, got, tt.want)
		}
	}
}

// Zero options are pi's defaults: 20,000 recent tokens kept, a reserve of
// 16,384 (80% of it for the summary) and the current time on the request.
func TestCompactDefaults(t *testing.T) {
	t.Parallel()
	var b pathBuilder
	for i := range 250 {
		b.user(fmt.Sprint("q", i))
	}
	model := &answerer{answer: func(*ai.Request) ai.Message { return textAnswer("S") }}
	before := time.Now().UnixMilli()
	c, err := Compact(t.Context(), model, b.es, CompactOptions{Estimate: hundred})
	after := time.Now().UnixMilli()
	if err != nil {
		t.Fatal(err)
	}
	// the newest 200 messages are 20,000 tokens: the cut is at the 51st
	if c.FirstKeptEntryID != b.es[50].ID {
		t.Errorf("first kept %s, want %s", c.FirstKeptEntryID, b.es[50].ID)
	}
	r := model.reqs[0]
	if r.MaxTokens != 13107 || r.Messages[0].Timestamp < before || r.Messages[0].Timestamp > after {
		t.Errorf("max tokens %d, timestamp %d (called between %d and %d)", r.MaxTokens, r.Messages[0].Timestamp, before, after)
	}

	// the default estimate is EstimateTokens: 4 characters a token
	b = pathBuilder{}
	b.user(strings.Repeat("x", 4*30_000))
	b.user(strings.Repeat("y", 4*10_000))
	b.user(strings.Repeat("z", 4*10_000))
	c, err = Compact(t.Context(), model, b.es, CompactOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c.FirstKeptEntryID != "e02" || c.TokensBefore != 50_000 {
		t.Errorf("first kept %s, tokens before %d; want e02, 50000", c.FirstKeptEntryID, c.TokensBefore)
	}
}

// The kept part takes in the settings changes just before its first
// message, and a cut at an answer with no user message before it in
// the path is not a split turn.
func TestCompactCutPoints(t *testing.T) {
	t.Parallel()
	var b pathBuilder
	b.user("one")
	b.answer("two")
	b.add(ModelChangeEntry("", "p", "m"))
	b.add(ThinkingLevelEntry("", ai.ThinkingLow))
	b.user("three")
	b.answer("four")
	model := &answerer{answer: func(*ai.Request) ai.Message { return textAnswer("S") }}
	c, err := Compact(t.Context(), model, b.es, CompactOptions{KeepRecentTokens: 200, Estimate: hundred})
	if err != nil {
		t.Fatal(err)
	}
	if c.FirstKeptEntryID != "e03" {
		t.Errorf("first kept %s, want e03 (the model change before the kept turn)", c.FirstKeptEntryID)
	}
	for _, r := range model.reqs {
		if p := r.Messages[0].Text(); !strings.Contains(p, "[User]: one") || strings.Contains(p, "three") {
			t.Errorf("request:\n%s", p)
		}
	}

	b = pathBuilder{}
	b.answer("a1")
	b.answer("a2")
	b.answer("a3")
	model = &answerer{answer: func(*ai.Request) ai.Message { return textAnswer("S") }}
	c, err = Compact(t.Context(), model, b.es, CompactOptions{KeepRecentTokens: 100, Estimate: hundred})
	if err != nil {
		t.Fatal(err)
	}
	if c.FirstKeptEntryID != "e03" || c.Summary != "S" || len(model.reqs) != 1 {
		t.Errorf("first kept %s, summary %q, %d requests; want e03, S, 1", c.FirstKeptEntryID, c.Summary, len(model.reqs))
	}
	if p := model.reqs[0].Messages[0].Text(); !strings.HasPrefix(p, "<conversation>\n[Assistant]: a1\n\n[Assistant]: a2\n</conversation>") {
		t.Errorf("request:\n%s", p)
	}

	// nothing but tool results: no place to cut, nothing to compact
	b = pathBuilder{}
	for range 3 {
		b.msg(ai.Message{Role: ai.RoleToolResult, ToolCallID: "x", Content: []ai.Content{ai.TextContent("r")}})
	}
	if _, err := Compact(t.Context(), model, b.es, CompactOptions{KeepRecentTokens: 100, Estimate: hundred}); !errors.Is(err, ErrNothingToCompact) {
		t.Errorf("tool results only: %v, want ErrNothingToCompact", err)
	}
}

// Small options are taken as given, only zero means the default: a keep
// of 1 token keeps the newest message alone, a reserve of 1 leaves the
// summary its 80%, rounded down.
func TestCompactSmallOptions(t *testing.T) {
	t.Parallel()
	var b pathBuilder
	b.user("one")
	b.user("two")
	b.user("three")
	model := &answerer{answer: func(*ai.Request) ai.Message { return textAnswer("S") }}
	c, err := Compact(t.Context(), model, b.es, CompactOptions{KeepRecentTokens: 1, ReserveTokens: 1, Estimate: hundred})
	if err != nil {
		t.Fatal(err)
	}
	if c.FirstKeptEntryID != "e03" || model.reqs[0].MaxTokens != 0 {
		t.Errorf("first kept %s, max tokens %d; want e03, 0", c.FirstKeptEntryID, model.reqs[0].MaxTokens)
	}
}

// A path that ends in a tool result bigger than the keep has no cut point
// at or after where the keep is reached: pi then cuts at the newest cut
// point (here the tool call, splitting the only turn), not the oldest,
// which would leave nothing to summarise.
func TestCompactCutsAtTheNewestCutPointWhenOnlyToolResultsFollow(t *testing.T) {
	t.Parallel()
	var b pathBuilder
	b.user("read the notes") // e01: the split turn starts here
	b.call("read", "n.txt")  // e02 (first kept), e03
	model := byMaxTokens(map[int]string{8192: "PREFIX"})
	c, err := Compact(t.Context(), model, b.es, CompactOptions{KeepRecentTokens: 1, Estimate: hundred})
	if err != nil {
		t.Fatal(err)
	}
	if c.FirstKeptEntryID != "e02" || len(model.reqs) != 1 {
		t.Fatalf("first kept %s after %d requests; want e02 after 1 (the turn prefix's)", c.FirstKeptEntryID, len(model.reqs))
	}
	if p := model.reqs[0].Messages[0].Text(); !strings.Contains(p, "[User]: read the notes") || strings.Contains(p, "n.txt") {
		t.Errorf("turn prefix request:\n%s", p)
	}
}
