package session

import (
	"context"
	"errors"
	"iter"
	"strings"
	"sync"
	"testing"
	"time"

	"gopi/pkg/ai"
)

// summarizer is a scripted model that answers every request with text.
type summarizer struct {
	mu   sync.Mutex
	reqs []*ai.Request
	text string
	fail bool
}

func (s *summarizer) Stream(ctx context.Context, req *ai.Request) iter.Seq[ai.Event] {
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	s.mu.Unlock()
	return func(yield func(ai.Event) bool) {
		b := ai.NewBuilder(ai.Info{ID: "m", Provider: "p", API: "x"}, 1, yield)
		b.Start()
		if s.fail {
			b.Fail(ctx, errors.New("overloaded"))
			return
		}
		i, _ := b.TextStart()
		b.TextDelta(i, s.text)
		b.TextEnd(i, "")
		b.Done(ai.StopStop)
	}
}

func compactOpts() CompactOptions {
	return CompactOptions{KeepRecentTokens: 207, // exactly the newest turn: the cut is at its user message
		Now: func() time.Time { return time.UnixMilli(5) }}
}

func TestCompact(t *testing.T) {
	t.Parallel()
	es := withPaths(turnMsgs(8, 400))
	model := &summarizer{text: "## Goal\nsummary one"}
	c, err := Compact(t.Context(), model, es, compactOpts())
	if err != nil {
		t.Fatal(err)
	}
	if c.Type != TypeCompaction || c.Parent() != es[len(es)-1].ID || c.TokensBefore <= 0 {
		t.Fatalf("entry %+v", c)
	}
	kept := indexOf(es, c.FirstKeptEntryID)
	if kept <= 0 || es[kept].Message.Role == ai.RoleToolResult {
		t.Fatalf("cut at %d (%s)", kept, c.FirstKeptEntryID)
	}
	req := model.reqs[0]
	prompt := req.Messages[0].Text()
	if req.SystemPrompt != SummarizationSystemPrompt || !strings.HasPrefix(prompt, "<conversation>\n[User]: q0") ||
		!strings.Contains(prompt, "[Assistant tool calls]: read(path=\"f") || !strings.HasSuffix(prompt, "error messages.") {
		t.Errorf("request:\n%s", prompt)
	}
	if req.MaxTokens != DefaultReserveTokens*8/10 {
		t.Errorf("max tokens %d", req.MaxTokens)
	}
	if !strings.HasPrefix(c.Summary, "## Goal\nsummary one\n\n<read-files>\n") {
		t.Errorf("summary %q", c.Summary)
	}
	if d, ok := c.CompactionInfo(); !ok || len(d.ReadFiles) == 0 {
		t.Errorf("details %s", c.Details)
	}

	// A second compaction updates the first summary.
	c.ID = "cccccccc"
	es = append(es, c)
	es = append(es, reparent(withPaths(turnMsgs(8, 400)), "cccccccc", "x")...)
	model2 := &summarizer{text: "summary two"}
	c2, err := Compact(t.Context(), model2, es, compactOpts())
	if err != nil {
		t.Fatal(err)
	}
	p2 := model2.reqs[0].Messages[0].Text()
	if !strings.Contains(p2, "<previous-summary>\n"+c.Summary+"\n</previous-summary>") || !strings.Contains(p2, "NEW conversation messages") {
		t.Errorf("update prompt:\n%.600s", p2)
	}
	if d, _ := c2.CompactionInfo(); len(d.ReadFiles) == 0 {
		t.Errorf("file lists not carried over: %s", c2.Details)
	}
	ctx := BuildContext(append(es, c2), Budget{})
	if !strings.Contains(ctx.Messages[0].Text(), "summary two") {
		t.Errorf("context does not start with the new summary: %s", brief(ctx.Messages[:1]))
	}
}

func reparent(es []Entry, parent, prefix string) []Entry {
	for i := range es {
		es[i].ID = prefix + es[i].ID[1:]
		if i == 0 {
			es[i].ParentID = Ref(parent)
		} else {
			es[i].ParentID = Ref(es[i-1].ID)
		}
	}
	return es
}

func indexOf(es []Entry, id string) int {
	for i, e := range es {
		if e.ID == id {
			return i
		}
	}
	return -1
}

// One huge turn is cut inside: the turn's prefix gets its own summary.
func TestCompactSplitTurn(t *testing.T) {
	t.Parallel()
	es := turnMsgs(1, 4000)
	for range 6 {
		more := turnMsgs(1, 4000)[1:3]
		for _, m := range more {
			m.ID = RandomID()
			m.ParentID = Ref(es[len(es)-1].ID)
			es = append(es, m)
		}
	}
	model := &summarizer{text: "S"}
	c, err := Compact(t.Context(), model, es, CompactOptions{KeepRecentTokens: 2000})
	if err != nil {
		t.Fatal(err)
	}
	if len(model.reqs) != 1 || !strings.Contains(c.Summary, "**Turn Context (split turn):**") ||
		!strings.HasPrefix(c.Summary, "No prior history.") {
		t.Errorf("%d requests, summary %q", len(model.reqs), c.Summary)
	}
}

func TestCompactErrors(t *testing.T) {
	t.Parallel()
	if _, err := Compact(t.Context(), &summarizer{}, turnMsgs(1, 10), compactOpts()); !errors.Is(err, ErrNothingToCompact) {
		t.Errorf("small path: %v", err)
	}
	if _, err := Compact(t.Context(), &summarizer{fail: true}, turnMsgs(8, 400), compactOpts()); err == nil || !strings.Contains(err.Error(), "overloaded") {
		t.Errorf("failing model: %v", err)
	}
}

// withPaths makes each read call name a file f<n>.go.
func withPaths(es []Entry) []Entry {
	for i := range es {
		if m := es[i].Message; m.Role == ai.RoleAssistant && len(m.ToolCalls()) > 0 {
			m.Content[0].Arguments = []byte(`{"path":"f` + string(rune('0'+i%4)) + `.go"}`)
		}
	}
	return es
}

func TestContextTokens(t *testing.T) {
	t.Parallel()
	es := turnMsgs(2, 400)
	es[3].Message.Usage = ai.Usage{Input: 5000, Output: 10, TotalTokens: 5010}
	got := ContextTokens(es)
	want := 5010 + EstimateTokens(*es[4].Message) + EstimateTokens(*es[5].Message) + EstimateTokens(*es[6].Message) + EstimateTokens(*es[7].Message)
	if got != want {
		t.Errorf("ContextTokens %d, want %d", got, want)
	}
	if !ShouldCompact(190_000, 200_000, 0) || ShouldCompact(100_000, 200_000, 0) {
		t.Error("ShouldCompact threshold")
	}
}

// The summary request's text is pi's serialization of the conversation
// (built in one buffer since a long session's is tens of megabytes).
func TestConversationPromptIsPisSerialization(t *testing.T) {
	t.Parallel()
	ms := []ai.Message{
		ai.UserText("fix the parser", 1),
		{Role: ai.RoleAssistant, Content: []ai.Content{{Type: ai.TypeThinking, Thinking: "look first"}, ai.TextContent("Reading."), ai.TextContent("Two."),
			ai.ToolCallContent("c1", "read", []byte(`{"path":"p.go","offset":3}`)), ai.ToolCallContent("c2", "bash", []byte(`{"command":"go test"}`))}},
		{Role: ai.RoleToolResult, ToolCallID: "c1", Content: []ai.Content{ai.TextContent(strings.Repeat("é", 2005))}},
		{Role: ai.RoleToolResult, ToolCallID: "c2", Content: []ai.Content{}},
		{Role: ai.RoleAssistant, Content: []ai.Content{ai.TextContent("Done.")}},
	}
	want := "<conversation>\n[User]: fix the parser\n\n[Assistant thinking]: look first\n\n[Assistant]: Reading.\nTwo.\n\n" +
		"[Assistant tool calls]: read(path=\"p.go\", offset=3); bash(command=\"go test\")\n\n" +
		"[Tool result]: " + strings.Repeat("é", 2000) + "\n\n[... 5 more characters truncated]\n\n[Assistant]: Done.\n</conversation>\n\nTAIL"
	if got := conversationPrompt(ms, "TA", "IL"); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

// The summary request sees the history as the model saw it: context
// edits applied (pi 1.6 summarizes its projection).
func TestCompactAppliesContextEdits(t *testing.T) {
	t.Parallel()
	es := withPaths(turnMsgs(8, 400))
	edit, err := ContextEditEntry(es[len(es)-1].ID, es[0].ID, []ai.Content{ai.TextContent("EDITED first question")})
	if err != nil {
		t.Fatal(err)
	}
	edit.ID = "eeeeeeee"
	es = append(es, edit)
	model := &summarizer{text: "s"}
	if _, err := Compact(t.Context(), model, es, compactOpts()); err != nil {
		t.Fatal(err)
	}
	prompt := model.reqs[0].Messages[0].Text()
	if !strings.HasPrefix(prompt, "<conversation>\n[User]: EDITED first question") {
		t.Errorf("request:\n%.300s", prompt)
	}
}
