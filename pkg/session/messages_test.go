package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"gopi/pkg/ai"
)

// EstimateTokens is pi's chars/4: text of every message, thinking and
// tool calls (name and arguments) of the assistant's only, and a fixed
// 4,800 characters for an image in a tool result (none in a user's or
// the assistant's message).
func TestEstimateTokensCounts(t *testing.T) {
	t.Parallel()
	image := ai.Content{Type: ai.TypeImage, Data: "AAAA", MimeType: "image/png"}
	thinking := ai.Content{Type: ai.TypeThinking, Thinking: strings.Repeat("t", 40)}
	call := ai.ToolCallContent("c1", "read", []byte(`{"path":"a.go"}`)) // 4 + 15 characters
	tests := []struct {
		name string
		m    ai.Message
		want int
	}{
		{"text", ai.UserText(strings.Repeat("é", 9), 1), 3},
		{"assistant thinking", ai.Message{Role: ai.RoleAssistant, Content: []ai.Content{thinking}}, 10},
		{"user thinking", ai.Message{Role: ai.RoleUser, Content: []ai.Content{thinking}}, 0},
		{"assistant tool call", ai.Message{Role: ai.RoleAssistant, Content: []ai.Content{call}}, 5},
		{"tool call elsewhere", ai.Message{Role: ai.RoleToolResult, Content: []ai.Content{call}}, 0},
		{"image in a tool result", ai.Message{Role: ai.RoleToolResult, Content: []ai.Content{image, ai.TextContent("ab")}}, 1201},
		{"image from the user", ai.Message{Role: ai.RoleUser, Content: []ai.Content{image}}, 0},
		{"image from the assistant", ai.Message{Role: ai.RoleAssistant, Content: []ai.Content{image}}, 0},
	}
	for _, tt := range tests {
		if got := EstimateTokens(tt.m); got != tt.want {
			t.Errorf("%s: %d tokens, want %d", tt.name, got, tt.want)
		}
	}
}

// A stored message of a role the model does not know is left out of the
// context; pi's own roles become user messages.
func TestContextMessageRoles(t *testing.T) {
	t.Parallel()
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }
	var b pathBuilder
	b.user("hello")
	b.msg(ai.Message{Role: "somethingNew", Content: []ai.Content{ai.TextContent("unknown")}})
	b.msg(ai.Message{Role: "compactionSummary", Extra: map[string]json.RawMessage{"summary": raw(`"S"`)}})
	b.msg(ai.Message{Role: "branchSummary", Extra: map[string]json.RawMessage{"summary": raw(`"B"`)}})
	b.msg(ai.Message{Role: "custom", Content: []ai.Content{ai.TextContent("C")}})
	ctx := BuildContext(b.es, Budget{})
	var got []string
	for _, m := range ctx.Messages {
		got = append(got, m.Role+":"+m.Text())
	}
	want := []string{"user:hello", "user:" + CompactionSummaryPrefix + "S" + CompactionSummarySuffix,
		"user:" + BranchSummaryPrefix + "B" + BranchSummarySuffix, "user:C"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("context\n%q\nwant\n%q", got, want)
	}
}

// An answer with only tool calls, or only thinking, is serialised without
// empty parts.
func TestConversationPromptLeavesOutEmptyParts(t *testing.T) {
	t.Parallel()
	ms := []ai.Message{
		{Role: ai.RoleAssistant, Content: []ai.Content{ai.ToolCallContent("c1", "read", []byte(`{"path":"a"}`))}},
		{Role: ai.RoleAssistant, Content: []ai.Content{{Type: ai.TypeThinking, Thinking: "hm"}}},
	}
	want := "<conversation>\n[Assistant tool calls]: read(path=\"a\")\n\n[Assistant thinking]: hm\n</conversation>\n\n"
	if got := conversationPrompt(ms); got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
}

// A new stable cut keeps the most whole turns that fit two-thirds of the
// limit.
func TestStableCutKeepsTwoThirds(t *testing.T) {
	t.Parallel()
	es := turnMsgs(10, 400) // turns of 204 tokens
	b := Budget{ContextWindow: 1300, ReserveOutput: 100}
	c := BuildStableContext(es, b, Cut{})
	if len(c.Messages) != 12 || c.Tokens != 612 || c.Dropped.Turns != 7 {
		t.Errorf("%d messages, %d tokens, %d turns dropped; want 3 turns: 12 messages, 612 tokens, 7 dropped",
			len(c.Messages), c.Tokens, c.Dropped.Turns)
	}
}

// Without a compaction, ContextTokens counts from the first entry.
func TestContextTokensWithoutCompaction(t *testing.T) {
	t.Parallel()
	var b pathBuilder
	b.user(strings.Repeat("a", 40))
	b.user(strings.Repeat("b", 8))
	if got := ContextTokens(b.es); got != 12 {
		t.Errorf("ContextTokens %d, want 12", got)
	}
}

// A previous cut is kept only when it is of the same base and still names
// the same message; otherwise a new one is made.
func TestStableCutKeptOnlyWhenItStillHolds(t *testing.T) {
	t.Parallel()
	es := turnMsgs(10, 400) // turns of 204 tokens: a new cut keeps 3 (12 messages), 4 still fit
	b := Budget{ContextWindow: 1300, ReserveOutput: 100}
	tests := []struct {
		name string
		prev Cut
		want int // messages
	}{
		{"same base and message", Cut{Index: 24, ID: es[24].ID}, 16},
		{"another base", Cut{Base: "cccccccc", Index: 24, ID: es[24].ID}, 12},
		{"another message", Cut{Index: 24, ID: es[20].ID}, 12},
		{"past the end", Cut{Index: 40, ID: es[24].ID}, 12},
	}
	for _, tt := range tests {
		if c := BuildStableContext(es, b, tt.prev); len(c.Messages) != tt.want {
			t.Errorf("%s: %d messages, want %d", tt.name, len(c.Messages), tt.want)
		}
	}
}

// A compaction at the root of a path leads the context like any other:
// its summary first, never dropped, and the cut is based on it.
func TestCompactionAtTheRoot(t *testing.T) {
	t.Parallel()
	var b pathBuilder
	b.add(Entry{Type: TypeCompaction, Summary: "S", FirstKeptEntryID: "e02"})
	for i := range 6 {
		b.user(fmt.Sprint("q", i, " ", strings.Repeat("x", 400)))
	}
	ctx := BuildContext(b.es, Budget{ContextWindow: 400})
	if len(ctx.Messages) < 2 || ctx.Sources[0] != "e01" || ctx.Cut.Base != "e01" ||
		!strings.Contains(ctx.Messages[0].Text(), "S") || ctx.Dropped.Turns == 0 {
		t.Errorf("context from %v, cut %+v, dropped %+v", ctx.Sources, ctx.Cut, ctx.Dropped)
	}
}

// The newest model change or answer names the model, the newest thinking
// change the level; an older answer or change does not override them.
func TestModelStateOfNewestWins(t *testing.T) {
	t.Parallel()
	var b pathBuilder
	b.msg(ai.Message{Role: ai.RoleAssistant, Provider: "old", Model: "answer-model", Content: []ai.Content{ai.TextContent("a")}})
	b.add(ThinkingLevelEntry("", ai.ThinkingHigh))
	b.add(ModelChangeEntry("", "new", "changed-model"))
	b.add(ThinkingLevelEntry("", ai.ThinkingLow))
	b.user("q")
	want := ModelState{Provider: "new", ModelID: "changed-model", ThinkingLevel: ai.ThinkingLow}
	if got := ModelStateOf(b.es); got != want {
		t.Errorf("ModelStateOf %+v, want %+v", got, want)
	}
	if got := ModelStateAt(b.es, "e05"); got != want {
		t.Errorf("ModelStateAt %+v, want %+v", got, want)
	}
	if got := ModelStateOf(b.es[:1]); got != (ModelState{Provider: "old", ModelID: "answer-model", ThinkingLevel: ai.ThinkingOff}) {
		t.Errorf("from an answer alone: %+v", got)
	}
	// an answer after a model change names the model
	b = pathBuilder{}
	b.add(ModelChangeEntry("", "old", "changed-model"))
	b.msg(ai.Message{Role: ai.RoleAssistant, Provider: "new", Model: "answer-model", Content: []ai.Content{ai.TextContent("a")}})
	if got := ModelStateOf(b.es); got != (ModelState{Provider: "new", ModelID: "answer-model", ThinkingLevel: ai.ThinkingOff}) {
		t.Errorf("answer after a model change: %+v", got)
	}
}

// CompactionInfo is ok only for details of pi's shape.
func TestCompactionInfoShape(t *testing.T) {
	t.Parallel()
	for details, ok := range map[string]bool{``: false, `[1,2]`: false, `{"readFiles":["a"],"modifiedFiles":[]}`: true} {
		e := Entry{Type: TypeCompaction, Details: json.RawMessage(details)}
		if d, got := e.CompactionInfo(); got != ok || ok && (len(d.ReadFiles) != 1 || d.ReadFiles[0] != "a") {
			t.Errorf("details %q: %+v, %v; want ok %v", details, d, got, ok)
		}
	}
}

// A header is written in pi's field order; a version of 0 (pi's first
// format had none) is left out, any other is written.
func TestHeaderVersionWritten(t *testing.T) {
	t.Parallel()
	for v, want := range map[int]string{
		0: `{"type":"session","id":"x","timestamp":"t","cwd":"/"}`,
		1: `{"type":"session","version":1,"id":"x","timestamp":"t","cwd":"/"}`,
		3: `{"type":"session","version":3,"id":"x","timestamp":"t","cwd":"/"}`,
	} {
		got, err := Header{Type: "session", Version: v, ID: "x", Timestamp: "t", Cwd: "/"}.MarshalJSON()
		if err != nil || string(got) != want {
			t.Errorf("version %d: %s, %v; want %s", v, got, err, want)
		}
	}
}

// A session's name is its newest non-blank session_info name, the first
// entry included.
func TestSessionNameFromTheFirstEntry(t *testing.T) {
	t.Parallel()
	name, blank := " first ", "  "
	es := []Entry{{Type: TypeSessionInfo, ID: "a", Name: &name}, {Type: TypeSessionInfo, ID: "b", ParentID: Ref("a"), Name: &blank}}
	if got := SessionName(es); got != "first" {
		t.Errorf("SessionName %q, want first", got)
	}
}

// A header line of exactly 1 MiB is read; one far longer is refused
// without reading the rest of the file.
func TestHeaderLineBound(t *testing.T) {
	t.Parallel()
	header := func(size int) string {
		h := `{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/`
		return h + strings.Repeat("d", size-len(h)-2) + `"}`
	}
	f, err := Read(strings.NewReader(header(1<<20)+"\n"), "s.jsonl")
	if err != nil || len(f.Header.Cwd) != 1<<20-len(`{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"`)-2 {
		t.Fatalf("a 1 MiB header: %v", err)
	}
	_, err = Read(strings.NewReader(header(1<<20+1<<17)+"\n"), "s.jsonl")
	if !errors.Is(err, ErrInvalidHeader) || !strings.Contains(err.Error(), "the first line is longer than 1048576 bytes") {
		t.Fatalf("a header over 1 MiB: %v", err)
	}
}

// A version 1 compaction's firstKeptEntryIndex (a line number, the header
// being 0) becomes the id of that entry, its own line included.
func TestV1CompactionKeepingFromItself(t *testing.T) {
	t.Parallel()
	data := `{"type":"session","id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}` + "\n" +
		`{"type":"message","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"hi","timestamp":1}}` + "\n" +
		`{"type":"compaction","timestamp":"2026-01-01T00:00:00.000Z","summary":"S","firstKeptEntryIndex":2,"tokensBefore":5}` + "\n"
	f, err := Read(strings.NewReader(data), "v1.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Entries) != 2 || f.Entries[1].ID != "00000002" || f.Entries[1].FirstKeptEntryID != "00000002" || len(f.Entries[1].Extra) != 0 {
		t.Fatalf("entries %+v", f.Entries)
	}
}
