package loop

import (
	"bytes"
	"testing"

	"gopi/internal/pijson"
	"gopi/pkg/ai"
)

// The direct encoding of message_update deltas writes the same bytes as
// the encoding/json path every other event takes (and every event took
// before): escapes, control characters, HTML characters, non-ASCII text,
// U+2028 and U+2029, invalid UTF-8.
func FuzzDeltaJSONMatchesEncodingJSON(f *testing.F) {
	for _, d := range []string{"", "word ", "a \"quoted\" \\ path", "tab\tnew\nline\r\b\f\x00\x1f\x7f",
		"<b>&amp;</b>", "é 日本語 🙂", "line\u2028sep\u2029para", "only\u2028", "only\u2029", "bad \xff\xfe utf-8", "half \xe2\x80", `{"path":"big.txt","content":"x`} {
		f.Add(d, 0)
		f.Add(d, 3)
		f.Add(d, 12)
	}
	f.Fuzz(func(t *testing.T, delta string, index int) {
		for _, typ := range []ai.EventType{ai.EventTextDelta, ai.EventThinkingDelta, ai.EventToolCallDelta} {
			e := Event{Type: MessageUpdate, Stream: &ai.Event{Type: typ, Index: index, Delta: delta}}
			want, err := pijson.Marshal(e.shape())
			if err != nil {
				t.Fatal(err)
			}
			got, err := e.AppendJSON([]byte("kept"))
			if err != nil || !bytes.Equal(got, append([]byte("kept"), want...)) {
				t.Fatalf("%s %q: got %s (%v)\nwant kept%s", typ, delta, got, err, want)
			}
			if m, _ := e.MarshalJSON(); !bytes.Equal(m, want) {
				t.Fatalf("%s %q: MarshalJSON %s, want %s", typ, delta, m, want)
			}
		}
	})
}

// Events other than deltas are written by encoding/json, as before.
func TestAppendJSONOfOtherEventsIsMarshalJSON(t *testing.T) {
	t.Parallel()
	msg := ai.Message{Role: ai.RoleAssistant, Content: []ai.Content{ai.TextContent("hi")}}
	block := ai.TextContent("hi")
	for _, e := range []Event{
		{Type: AgentStart},
		{Type: MessageStart, Message: &msg},
		{Type: MessageUpdate, Stream: &ai.Event{Type: ai.EventTextEnd, Block: &block}},
		{Type: MessageUpdate, Stream: &ai.Event{Type: ai.EventTextStart}},
		{Type: ToolStart, ToolCallID: "c1", ToolName: "read"},
	} {
		want, err := pijson.Marshal(e.shape())
		if err != nil {
			t.Fatal(err)
		}
		if got, err := e.AppendJSON(nil); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s: got %s (%v), want %s", e.Type, got, err, want)
		}
	}
}
