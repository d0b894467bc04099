package anthropic

import (
	"encoding/json"
	"strings"
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/ai/provider/providertest"
)

// replayRequest is a conversation continuing a tool-use turn of the same
// model, with thinking to replay, two tool results and an image.
func replayRequest() *ai.Request {
	prev := ai.Message{
		Role: ai.RoleAssistant, API: API, Provider: "anthropic", Model: "claude-sonnet-4-5", StopReason: ai.StopToolUse,
		Content: []ai.Content{
			{Type: ai.TypeThinking, Thinking: "plan", ThinkingSignature: "sig-1"},
			{Type: ai.TypeThinking, Thinking: RedactedThinkingText, ThinkingSignature: "opaque-data", Redacted: true},
			ai.TextContent("Looking."),
			ai.ToolCallContent("toolu_1", "ls", json.RawMessage(`{"path":"."}`)),
			ai.ToolCallContent("call|weird.id", "read", json.RawMessage(`{"path":"a.png"}`)),
		},
	}
	foreign := ai.Message{
		Role: ai.RoleAssistant, API: "openai-completions", Provider: "openai", Model: "gpt-5", StopReason: ai.StopStop,
		Content: []ai.Content{{Type: ai.TypeThinking, Thinking: "other model's thoughts", ThinkingSignature: "reasoning_content"}, ai.TextContent("Earlier answer.")},
	}
	failed := ai.Message{Role: ai.RoleAssistant, API: API, Provider: "anthropic", Model: "claude-sonnet-4-5", StopReason: ai.StopError,
		Content: []ai.Content{ai.TextContent("partial of a failed attempt")}}
	temp := 0.2
	return &ai.Request{
		SystemPrompt: "You are gopi.",
		Thinking:     ai.ThinkingHigh,
		Temperature:  &temp,
		Tools: []ai.ToolSpec{{Name: "ls", Description: "List files.",
			Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}},
		Messages: []ai.Message{
			ai.UserText("first question", 1),
			foreign,
			ai.UserText("list and read", 2),
			failed,
			prev,
			{Role: ai.RoleToolResult, ToolCallID: "toolu_1", ToolName: "ls", Content: []ai.Content{ai.TextContent("a.png\nmain.go")}},
			{Role: ai.RoleToolResult, ToolCallID: "call|weird.id", ToolName: "read", IsError: false,
				Content: []ai.Content{ai.TextContent("image:"), ai.ImageContent("iVBORw0KGgo=", "image/png")}},
		},
	}
}

const wantReplayBody = `{
  "model": "claude-sonnet-4-5",
  "max_tokens": 48384,
  "system": [{"type": "text", "text": "You are gopi.", "cache_control": {"type": "ephemeral"}}],
  "messages": [
    {"role": "user", "content": [{"type": "text", "text": "first question"}]},
    {"role": "assistant", "content": [{"type": "text", "text": "Earlier answer."}]},
    {"role": "user", "content": [{"type": "text", "text": "list and read"}]},
    {"role": "assistant", "content": [
      {"type": "thinking", "thinking": "plan", "signature": "sig-1"},
      {"type": "redacted_thinking", "data": "opaque-data"},
      {"type": "text", "text": "Looking."},
      {"type": "tool_use", "id": "toolu_1", "name": "ls", "input": {"path": "."}},
      {"type": "tool_use", "id": "call_weird_id", "name": "read", "input": {"path": "a.png"}}
    ]},
    {"role": "user", "content": [
      {"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": "a.png\nmain.go"}]},
      {"type": "tool_result", "tool_use_id": "call_weird_id", "content": [
        {"type": "text", "text": "image:"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}
      ], "cache_control": {"type": "ephemeral"}}
    ]}
  ],
  "tools": [{"name": "ls", "description": "List files.", "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}],
  "thinking": {"type": "enabled", "budget_tokens": 16384},
  "stream": true
}`

func TestRequestBodyReplaysThinkingAndMergesToolResults(t *testing.T) {
	srv, m, _ := fixture(t, providertest.SSE(providertest.File(t, "testdata/text.sse")))
	stream(t, m, replayRequest())

	req := srv.Requests()[0]
	providertest.AssertJSON(t, wantReplayBody, req.Body)
	if got := req.Header.Get("anthropic-beta"); got != "fine-grained-tool-streaming-2025-05-14,interleaved-thinking-2025-05-14" {
		t.Errorf("anthropic-beta = %q", got)
	}
}

func TestThinkingParams(t *testing.T) {
	tests := []struct {
		name      string
		info      ai.Info
		level     ai.ThinkingLevel
		maxTokens int
		want      string // thinking, output_config and max_tokens as JSON
	}{
		{"off", sonnet, ai.ThinkingOff, 0, `{"max_tokens":32000}`},
		{"minimal", sonnet, ai.ThinkingMinimal, 0, `{"max_tokens":33024,"thinking":{"type":"enabled","budget_tokens":1024}}`},
		{"medium with asked max", sonnet, ai.ThinkingMedium, 4000, `{"max_tokens":12192,"thinking":{"type":"enabled","budget_tokens":8192}}`},
		{"xhigh clamps to high", sonnet, ai.ThinkingXHigh, 0, `{"max_tokens":48384,"thinking":{"type":"enabled","budget_tokens":16384}}`},
		{"model limit shrinks budget", ai.Info{ID: "claude-opus-4-1", Reasoning: true, MaxOutputTokens: 16000}, ai.ThinkingHigh, 16000,
			`{"max_tokens":16000,"thinking":{"type":"enabled","budget_tokens":14976}}`},
		{"not a reasoning model", ai.Info{ID: "claude-3-5-haiku", MaxOutputTokens: 8192}, ai.ThinkingHigh, 0, `{"max_tokens":8192}`},
		{"adaptive opus 4.6 xhigh", ai.Info{ID: "claude-opus-4-6", Reasoning: true, MaxOutputTokens: 128000}, ai.ThinkingXHigh, 0,
			`{"max_tokens":32000,"thinking":{"type":"adaptive"},"output_config":{"effort":"max"}}`},
		{"adaptive sonnet 4.6 minimal", ai.Info{ID: "claude-sonnet-4-6", Reasoning: true, MaxOutputTokens: 64000}, ai.ThinkingMinimal, 0,
			`{"max_tokens":32000,"thinking":{"type":"adaptive"},"output_config":{"effort":"low"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			body, _, err := buildBody(Config{Info: tt.info}, &ai.Request{Thinking: tt.level, MaxTokens: tt.maxTokens})
			if err != nil {
				t.Fatal(err)
			}
			var got struct {
				MaxTokens    int             `json:"max_tokens"`
				Thinking     json.RawMessage `json:"thinking,omitempty"`
				OutputConfig json.RawMessage `json:"output_config,omitempty"`
			}
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(got)
			providertest.AssertJSON(t, tt.want, b)
		})
	}
}

func TestRequestWithoutCacheAndWithTemperature(t *testing.T) {
	temp := 0.3
	body, thinking, err := buildBody(Config{Info: sonnet, NoCache: true}, &ai.Request{
		SystemPrompt: "sys", Temperature: &temp,
		Messages: []ai.Message{ai.UserText("  ", 1), ai.UserText("q", 2)},
	})
	if err != nil || thinking {
		t.Fatal(err, thinking)
	}
	providertest.AssertJSON(t, `{"model":"claude-sonnet-4-5","max_tokens":32000,"system":[{"type":"text","text":"sys"}],
		"messages":[{"role":"user","content":[{"type":"text","text":"q"}]}],"temperature":0.3,"stream":true}`, body)
}

// Tool call ids from other providers are made acceptable; good ones pass
// unchanged.
func TestToolID(t *testing.T) {
	long := strings.Repeat("a", 70)
	for in, want := range map[string]string{
		"toolu_01A-b":           "toolu_01A-b",
		"call.1:x":              "call_1_x",
		"fc|call 7":             "fc_call_7",
		"日本":                    "__",
		long:                    long[:64],
		long[:64]:               long[:64],
		strings.Repeat("é", 40): strings.Repeat("_", 40),
		"":                      "",
	} {
		if got := ToolID(in); got != want {
			t.Errorf("ToolID(%q) = %q, want %q", in, got, want)
		}
	}
}
