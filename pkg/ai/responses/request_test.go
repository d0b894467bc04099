package responses

import (
	"bytes"
	"encoding/json"
	"testing"

	"gopi/internal/golden"
	"gopi/pkg/ai"
)

const encryptedItem = `{"id":"rs_A","type":"reasoning","summary":[{"type":"summary_text","text":"**Plan**\n\nRead, then test."}],"encrypted_content":"gAAAAABencryptedA=="}`

// goldenHistory has every kind of message the conversion treats apart.
func goldenHistory() []ai.Message {
	own := func(stop ai.StopReason, cs ...ai.Content) ai.Message {
		return ai.Message{Role: ai.RoleAssistant, API: API, Provider: "openai", Model: "gpt-5-codex", StopReason: stop, Content: cs}
	}
	result := func(id string, cs ...ai.Content) ai.Message {
		return ai.Message{Role: ai.RoleToolResult, ToolCallID: id, ToolName: "read", Content: cs}
	}
	return []ai.Message{
		{Role: ai.RoleUser, Content: []ai.Content{ai.TextContent("what is in this picture?"), ai.ImageContent("iVBORw0KGgo=", "image/png")}},
		{Role: ai.RoleAssistant, API: "anthropic-messages", Provider: "anthropic", Model: "claude-sonnet-4-5", StopReason: ai.StopToolUse,
			Content: []ai.Content{{Type: ai.TypeThinking, Thinking: "Another model's thought.", ThinkingSignature: "EqQBCkYIBxgCKkBsig"},
				ai.TextContent("A diagram. Let me read the notes."), ai.ToolCallContent("toolu_01", "read", json.RawMessage(`{"path":"notes.md"}`))}},
		result("toolu_01", ai.TextContent("# Notes")),
		ai.UserText("now run the tests", 2),
		own(ai.StopToolUse, ai.Content{Type: ai.TypeThinking, Thinking: "**Plan**\n\nRead, then test.", ThinkingSignature: encryptedItem},
			ai.Content{Type: ai.TypeText, Text: "Reading first.", TextSignature: `{"v":1,"id":"msg_A","phase":"commentary"}`},
			ai.ToolCallContent("call_A|fc_A", "read", json.RawMessage(`{"path":"go.mod"}`)),
			ai.ToolCallContent("call_B|fc_B", "read", json.RawMessage(`{"path":"shot.png"}`))),
		result("call_A|fc_A", ai.TextContent("module gopi")),
		result("call_B|fc_B", ai.ImageContent("R0lGODlh", "image/gif")),
		own(ai.StopToolUse, ai.Content{Type: ai.TypeThinking, Thinking: "No encrypted content.", ThinkingSignature: `{"id":"rs_B","type":"reasoning","summary":[]}`},
			ai.ToolCallContent("call_C|fc_C", "read", json.RawMessage(`{"path":"x"}`))),
		result("call_C|fc_C", ai.TextContent("x")),
		own(ai.StopAborted, ai.TextContent("cut off")),
		own(ai.StopLength, ai.Content{Type: ai.TypeThinking, Thinking: "Ran out.", ThinkingSignature: encryptedItem}),
		ai.UserText("continue", 3),
	}
}

// TestRequestBodyGolden pins the whole body of a request with every kind
// of item: images, another model's turn (its thinking as text, its call
// without an item id), reasoning items sent back, a reasoning item that
// cannot be (no encrypted content: the call after it loses its item id),
// tool results with images, an aborted turn (dropped) and a turn of only
// reasoning (nothing to pair it with: dropped).
func TestRequestBodyGolden(t *testing.T) {
	req := &ai.Request{
		SystemPrompt: "You are a coding agent.", Messages: goldenHistory(), MaxTokens: 4096, Thinking: ai.ThinkingXHigh,
		Tools: []ai.ToolSpec{{Name: "read", Description: "Read a file.",
			Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}},
	}
	body, err := buildBody(codex, req)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, body, "", "  "); err != nil {
		t.Fatalf("body is not JSON: %v\n%s", err, body)
	}
	golden.Check(t, golden.Path(t), append(out.Bytes(), '\n'))
}

func TestRequestWithoutReasoning(t *testing.T) {
	info := ai.Info{ID: "gpt-4.1", Provider: "proxy", API: API}
	temp := 0.2
	body, err := buildBody(info, &ai.Request{Thinking: ai.ThinkingHigh, Temperature: &temp, Messages: []ai.Message{ai.UserText("  ", 1)}})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(body); got != `{"model":"gpt-4.1","input":[],"stream":true,"store":false,"temperature":0.2}` {
		t.Errorf("body = %s", got)
	}
}

func TestEffort(t *testing.T) {
	tests := []struct {
		level ai.ThinkingLevel
		id    string
		want  string
	}{
		{ai.ThinkingOff, "gpt-5-codex", ""}, {"", "gpt-5-codex", ""},
		{ai.ThinkingMinimal, "gpt-5.2", "minimal"}, {ai.ThinkingMinimal, "gpt-5-codex", "low"}, {ai.ThinkingMinimal, "o3-pro", "low"},
		{ai.ThinkingMedium, "gpt-5.1-codex-mini", "medium"},
		{ai.ThinkingXHigh, "gpt-5-codex", "high"}, {ai.ThinkingXHigh, "gpt-5.1-codex-max", "xhigh"}, {ai.ThinkingXHigh, "gpt-5.2-pro", "xhigh"},
		{ai.ThinkingLow, "gpt-5-pro", "high"}, {ai.ThinkingOff, "gpt-5-pro", ""},
	}
	for _, tt := range tests {
		if got := effort(tt.level, tt.id); got != tt.want {
			t.Errorf("effort(%s, %s) = %q, want %q", tt.level, tt.id, got, tt.want)
		}
	}
}
