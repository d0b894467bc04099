package session

import (
	"encoding/json"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"gopi/pkg/ai"
)

// oldOneLine is the unbounded flattening the session commands used
// before OneLine: the reference OneLine must equal on ordinary text.
func oldOneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func TestOneLineEqualsTheUnboundedFlattening(t *testing.T) {
	pieces := []string{"a", "word", " ", "  ", "\n", "\t\n ", "é", "日本", "🙂", "x y", "\u00a0", "\u2028"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		var sb strings.Builder
		for range rng.IntN(60) {
			sb.WriteString(pieces[rng.IntN(len(pieces))])
		}
		s, n := sb.String(), 1+rng.IntN(40)
		if got, want := OneLine(s, n), oldOneLine(s, n); got != want {
			t.Fatalf("OneLine(%q, %d) = %q, want %q", s, n, got, want)
		}
	}
}

func TestOneLineIsBounded(t *testing.T) {
	blank := strings.Repeat(" ", 2*PreviewScan) + "late"
	if got := OneLine(blank, 10); got != "…" {
		t.Errorf("text after PreviewScan bytes of blanks: %q, want just …", got)
	}
	huge := strings.Repeat("word ", 1<<20/5)
	if got := OneLine(huge, 12); got != "word word w…" {
		t.Errorf("OneLine of a megabyte = %q", got)
	}
}

// entries of every kind a preview names, as sessions hold them.
func previewEntries() []Entry {
	name, label := "my session", "checkpoint"
	sys := ai.Message{Role: RoleSystem, Extra: map[string]json.RawMessage{
		"sections": json.RawMessage(`{"tools":"x","agents":"y"}`), "toolsAdded": json.RawMessage(`[{"name":"grep"}]`)}}
	return []Entry{
		MessageEntry("", ai.UserText("  fix\tthe   tests\n\nplease ", 1)),
		MessageEntry("", ai.Message{Role: ai.RoleAssistant, StopReason: ai.StopToolUse, Content: []ai.Content{
			{Type: ai.TypeToolCall, ID: "c1", Name: "bash", Arguments: json.RawMessage(`{"command":"go test ./..."}`)}}}),
		MessageEntry("", ai.Message{Role: ai.RoleToolResult, ToolCallID: "c1", Content: []ai.Content{ai.TextContent("ok  gopi/pkg  0.1s\n")}}),
		MessageEntry("", ai.Message{Role: ai.RoleAssistant, StopReason: ai.StopError, ErrorMessage: "overloaded", Content: []ai.Content{ai.TextContent("half an ")}}),
		MessageEntry("", ai.Message{Role: ai.RoleAssistant, StopReason: ai.StopStop, Content: []ai.Content{ai.TextContent(strings.Repeat("done. ", 30))}}),
		MessageEntry("", sys),
		{Type: TypeModelChange, Provider: "anthropic", ModelID: "claude-sonnet-4-5"},
		{Type: TypeThinkingLevelChange, ThinkingLevel: "high"},
		{Type: TypeCompaction, Summary: "## Goal\nfix the tests\n"},
		{Type: TypeContextEdit, TargetID: "abcd1234"},
		{Type: TypeContextEdit, TargetID: "abcd1234", Data: json.RawMessage(`{"content":[]}`)},
		{Type: TypeSessionInfo, Name: &name},
		{Type: TypeLabel, Label: &label},
	}
}

// The previews gopi session tree drew before they were bounded (its
// describe and oneLine at 70 characters), for previewEntries.
var oldTreePreviews = []string{
	"fix the tests please",
	"bash {\"command\":\"go test ./...\"}",
	"ok gopi/pkg 0.1s",
	"[error] half an",
	"done. done. done. done. done. done. done. done. done. done. done. don…",
	"sections agents, tools; toolsAdded grep",
	"anthropic/claude-sonnet-4-5",
	"high",
	"## Goal fix the tests",
	"omits abcd1234 from the context",
	"replaces the content of abcd1234",
	"my session",
	"checkpoint", // the label entry's text: the tree showed nothing, the export this
}

func TestPreviewOfOrdinaryEntries(t *testing.T) {
	for i, e := range previewEntries() {
		kind, got := Preview(e, TreePreviewLen)
		if got != oldTreePreviews[i] {
			t.Errorf("entry %d (%s): preview %q, want %q", i, kind, got, oldTreePreviews[i])
		}
		if oldKind, text := oldDescribe(e); e.Type != TypeLabel && (kind != oldKind || got != oldOneLine(text, TreePreviewLen)) {
			t.Errorf("entry %d: %s %q, the old describe said %s %q", i, kind, got, oldKind, oldOneLine(text, TreePreviewLen))
		}
	}
}

// A megabyte of a tool call's arguments (a file written) is copied only
// as far as PreviewScan reaches.
func TestPreviewOfHugeToolCallIsBounded(t *testing.T) {
	args, _ := json.Marshal(map[string]string{"content": strings.Repeat("ü", 1<<19)})
	e := MessageEntry("", ai.Message{Role: ai.RoleAssistant, StopReason: ai.StopToolUse, Content: []ai.Content{
		{Type: ai.TypeToolCall, ID: "c1", Name: "write", Arguments: args}}})
	_, got := Preview(e, TreePreviewLen)
	if _, text := oldDescribe(e); got != oldOneLine(text, TreePreviewLen) {
		t.Fatalf("preview %q differs from the unbounded one", got)
	}
	if n := testing.AllocsPerRun(10, func() { Preview(e, TreePreviewLen) }); n > 8 {
		t.Errorf("%v allocations", n)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	Preview(e, TreePreviewLen)
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 2*PreviewScan {
		t.Errorf("a preview of a 1 MB tool call allocated %d bytes, want at most %d", n, 2*PreviewScan)
	}
}

func hugeToolResult() Entry {
	return MessageEntry("", ai.Message{Role: ai.RoleToolResult, ToolCallID: "c1",
		Content: []ai.Content{ai.TextContent(strings.Repeat("line of output\n", 1<<20/15))}})
}

// A megabyte tool result is previewed from its start, for the cost of a
// few kilobytes: never the megabyte copied, split or converted.
func TestPreviewOfHugeToolResultIsBounded(t *testing.T) {
	e := hugeToolResult()
	if _, got := Preview(e, TreePreviewLen); got != oldOneLine(e.Message.Text(), TreePreviewLen) {
		t.Fatalf("preview %q differs from the unbounded one", got)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 10 {
		Preview(e, TreePreviewLen)
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / 10; per > 4<<10 {
		t.Errorf("a preview of a 1 MB tool result allocated %d bytes, want at most 4 KiB", per)
	}
}

func BenchmarkPreviewHugeToolResult(b *testing.B) {
	e := hugeToolResult()
	b.ReportAllocs()
	for b.Loop() {
		Preview(e, TreePreviewLen)
	}
}

// BenchmarkOldPreviewHugeToolResult is what the preview cost before it
// was bounded, for comparison.
func BenchmarkOldPreviewHugeToolResult(b *testing.B) {
	e := hugeToolResult()
	b.ReportAllocs()
	for b.Loop() {
		oldOneLine(e.Message.Text(), TreePreviewLen)
	}
}

// oldDescribe is how the session commands named an entry before
// Preview (the label and custom message entries aside, which they left
// without text).
func oldDescribe(e Entry) (kind, preview string) {
	switch e.Type {
	case TypeMessage:
		m := e.Message
		text := m.Text()
		if text == "" {
			for _, c := range m.ToolCalls() {
				text += c.Name + " " + string(c.Arguments) + " "
			}
		}
		if m.Role == ai.RoleAssistant && m.StopReason != ai.StopStop && m.StopReason != ai.StopToolUse {
			text = "[" + string(m.StopReason) + "] " + text
		}
		if m.Role == RoleSystem && text == "" {
			text = systemSays(m)
		}
		return m.Role, text
	case TypeModelChange:
		return e.Type, e.Provider + "/" + e.ModelID
	case TypeThinkingLevelChange:
		return e.Type, e.ThinkingLevel
	case TypeCompaction, TypeBranchSummary:
		return e.Type, e.Summary
	case TypeContextEdit:
		if len(e.Data) == 0 || string(e.Data) == "null" {
			return e.Type, "omits " + e.TargetID + " from the context"
		}
		return e.Type, "replaces the content of " + e.TargetID
	case TypeSessionInfo:
		if e.Name != nil {
			return e.Type, *e.Name
		}
	}
	return e.Type, ""
}
