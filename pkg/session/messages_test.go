package session

import (
	"encoding/json"
	"strings"
	"testing"

	"gopi/pkg/ai"
)

// EstimateTokens is pi's chars/4: text of every message, thinking and
// tool calls (name and arguments) of the assistant's only, and a fixed
// 4,800 characters for an image in a tool result (none in a user's or
// the assistant's message).
func TestEstimateTokensCounts(t *testing.T) {
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
