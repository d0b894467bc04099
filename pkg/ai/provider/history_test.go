package provider_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"gopi/pkg/ai"
	"gopi/pkg/ai/provider"
)

var self = ai.Info{ID: "m1", Provider: "p", API: "a"}

func call(id string) ai.Content { return ai.ToolCallContent(id, "ls", nil) }

func result(id string) ai.Message {
	return ai.Message{Role: ai.RoleToolResult, ToolCallID: id, ToolName: "ls", Content: []ai.Content{ai.TextContent("ok " + id)}}
}

// assistant is a message of the model self describes.
func assistant(stop ai.StopReason, content ...ai.Content) ai.Message {
	return ai.Message{Role: ai.RoleAssistant, Provider: self.Provider, API: self.API, Model: self.ID, StopReason: stop, Content: content}
}

// show renders messages as "role block block… [toolCallId]" lines; a
// synthesised result shows as "toolResult! …".
func show(msgs []ai.Message) []string {
	out := []string{}
	for _, m := range msgs {
		s := m.Role
		if m.IsError {
			s += "!"
		}
		for _, c := range m.Content {
			s += " " + c.Type + ":" + c.Text + c.Thinking + c.ID
		}
		if m.ToolCallID != "" {
			s += " @" + m.ToolCallID + "/" + m.ToolName
		}
		out = append(out, s)
	}
	return out
}

func TestNormalizePairsCallsAndResults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   []ai.Message
		want []string
	}{
		{"empty", nil, []string{}},
		{"answered calls kept in order",
			[]ai.Message{ai.UserText("q", 1), assistant(ai.StopToolUse, call("a"), call("b")), result("b"), result("a"), assistant(ai.StopStop, ai.TextContent("done"))},
			[]string{"user text:q", "assistant toolCall:a toolCall:b", "toolResult text:ok b @b/ls", "toolResult text:ok a @a/ls", "assistant text:done"}},
		{"missing result before the next user message",
			[]ai.Message{assistant(ai.StopToolUse, call("a"), call("b")), result("a"), ai.UserText("next", 2)},
			[]string{"assistant toolCall:a toolCall:b", "toolResult text:ok a @a/ls", "toolResult! text:No result provided @b/ls", "user text:next"}},
		{"missing result before the next assistant message",
			[]ai.Message{assistant(ai.StopToolUse, call("a")), assistant(ai.StopStop, ai.TextContent("x"))},
			[]string{"assistant toolCall:a", "toolResult! text:No result provided @a/ls", "assistant text:x"}},
		{"missing result at the end",
			[]ai.Message{ai.UserText("q", 1), assistant(ai.StopToolUse, ai.TextContent("let me look"), call("a"))},
			[]string{"user text:q", "assistant text:let me look toolCall:a", "toolResult! text:No result provided @a/ls"}},
		{"orphan and duplicate results dropped",
			[]ai.Message{assistant(ai.StopToolUse, ai.TextContent("t"), call("a")), result("zzz"), result("a"), result("a")},
			[]string{"assistant text:t toolCall:a", "toolResult text:ok a @a/ls"}},
		{"a result after the user spoke is late and dropped",
			[]ai.Message{assistant(ai.StopToolUse, call("a")), ai.UserText("stop", 2), result("a"), assistant(ai.StopStop, ai.TextContent("ok"))},
			[]string{"assistant toolCall:a", "toolResult! text:No result provided @a/ls", "user text:stop", "assistant text:ok"}},
		{"a result before any call is dropped",
			[]ai.Message{result("a"), ai.UserText("q", 1)},
			[]string{"user text:q"}},
		{"failed and aborted turns dropped with their calls",
			[]ai.Message{ai.UserText("q", 1), assistant(ai.StopError, ai.TextContent("half"), call("e")), result("e"),
				assistant(ai.StopAborted, call("c")), assistant(ai.StopLength, ai.TextContent("long"))},
			[]string{"user text:q", "assistant text:long"}},
		{"other roles are not sent",
			[]ai.Message{{Role: "bashExecution"}, ai.UserText("q", 1), {Role: "custom"}},
			[]string{"user text:q"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, show(provider.Normalize(tt.in, self))); diff != "" {
				t.Errorf("Normalize (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNormalizeForeignThinking(t *testing.T) {
	t.Parallel()
	content := []ai.Content{
		{Type: ai.TypeThinking, Thinking: "because", ThinkingSignature: "sig"},
		{Type: ai.TypeThinking, Thinking: "opaque", ThinkingSignature: "data", Redacted: true},
		{Type: ai.TypeThinking, Thinking: " \n "},
		{Type: ai.TypeText, Text: "answer", TextSignature: "tsig"},
		ai.ImageContent("AAAA", "image/png"),
		{Type: ai.TypeToolCall, ID: "c1", Name: "read", Arguments: json.RawMessage(`{}`),
			Extra: map[string]json.RawMessage{"thoughtSignature": json.RawMessage(`"ts"`)}},
	}
	foreign := []ai.Info{
		{ID: "m2", Provider: self.Provider, API: self.API},
		{ID: self.ID, Provider: "q", API: self.API},
		{ID: self.ID, Provider: self.Provider, API: "b"},
	}
	for _, from := range foreign {
		m := ai.Message{Role: ai.RoleAssistant, Provider: from.Provider, API: from.API, Model: from.ID, StopReason: ai.StopStop, Content: content}
		if provider.SameModel(m, self) {
			t.Errorf("SameModel(%+v) = true", from)
		}
		out := provider.Normalize([]ai.Message{m}, self)
		// Thinking is dropped (pi 1.6's transformMessages), signatures
		// go: they only verify for the model that made them.
		want := []ai.Content{ai.TextContent("answer"), ai.ImageContent("AAAA", "image/png"),
			{Type: ai.TypeToolCall, ID: "c1", Name: "read", Arguments: json.RawMessage(`{}`)}}
		if len(out) != 2 || out[1].Content[0].Text != provider.NoResultText { // the call's result is owed
			t.Fatalf("from %+v: %d messages", from, len(out))
		}
		if diff := cmp.Diff(want, out[0].Content); diff != "" {
			t.Errorf("from %+v: content (-want +got):\n%s", from, diff)
		}
	}
	// The model's own thinking goes back as it is, but for unsigned
	// empty thinking.
	own := assistant(ai.StopStop, content...)
	if !provider.SameModel(own, self) {
		t.Error("SameModel(own) = false")
	}
	out := provider.Normalize([]ai.Message{own}, self)
	if diff := cmp.Diff(append(slices.Clone(content[:2]), content[3:]...), out[0].Content); diff != "" {
		t.Errorf("own content (-want +got):\n%s", diff)
	}
	// The input is not modified.
	if content[0].Type != ai.TypeThinking || content[1].Thinking != "opaque" || len(content) != 6 || content[5].Extra["thoughtSignature"] == nil {
		t.Errorf("Normalize modified its input: %+v", content)
	}
}

// A history that needs no change is not copied (a resumed session's
// thousands of messages are normalized for every request), and what the
// caller appends to the result never lands in the history's storage.
func TestNormalizeUnchangedHistoryIsNotCopied(t *testing.T) {
	msgs := make([]ai.Message, 0, 3001)
	for i := range 1000 {
		id := string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + string(rune('0'+i/676))
		msgs = append(msgs, ai.UserText("go", 1), assistant(ai.StopToolUse, ai.TextContent("t"), call(id)), result(id))
	}
	want := show(msgs)
	got := provider.Normalize(msgs, self)
	if len(got) == 0 || &got[0] != &msgs[0] {
		t.Errorf("Normalize copied a history that needs no change")
	}
	if diff := cmp.Diff(want, show(got)); diff != "" {
		t.Fatalf("unchanged history (-want +got):\n%s", diff)
	}
	other := self
	other.ID = "m2" // for another model: plain text and tool calls need no change either
	if again := provider.Normalize(msgs, other); len(again) == 0 || &again[0] != &msgs[0] {
		t.Errorf("Normalize for another model copied a history of plain text and tool calls")
	}
	got = append(got, ai.UserText("more", 2))
	if spare := msgs[:len(msgs)+1][len(msgs)]; spare.Role != "" {
		t.Errorf("appending to the result wrote into the history's storage: %+v", spare)
	}
	// One change (an aborted answer in the middle) still gives the whole,
	// changed history, the input untouched.
	msgs[1501].StopReason = ai.StopAborted
	got = provider.Normalize(msgs, self)
	if len(got) != len(msgs)-2 { // the aborted answer, and its orphaned result
		t.Errorf("with one aborted answer: %d messages, want %d", len(got), len(msgs)-2)
	}
	if diff := cmp.Diff(want, show(msgs)); diff != "" {
		t.Errorf("Normalize changed its input (-want +got):\n%s", diff)
	}
}
