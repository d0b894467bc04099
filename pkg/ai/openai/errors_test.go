package openai

import (
	"strings"
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/ai/provider"
	"gopi/pkg/ai/provider/providertest"
)

// An OpenAI-compatible server's error answer reaches the user as the
// provider's words with the right class, whatever shape it came in.
func TestStatusErrorShapes(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("word ", provider.EmptyOverflowBytes/5+1)
	tests := []struct {
		name   string
		status int
		body   string
		prompt string
		class  ai.Class
		says   string
	}{
		{"Gemini's array", 400, `[{"error":{"code":400,"message":"The input token count (1196265) exceeds the maximum number of tokens allowed (1048575).","status":"INVALID_ARGUMENT"}}]`,
			"hi", ai.ClassContextOverflow, "INVALID_ARGUMENT: The input token count (1196265) exceeds the maximum number of tokens allowed (1048575)."},
		{"Ollama's string", 400, `{"error":"input length exceeds maximum context length"}`, "hi", ai.ClassContextOverflow, "input length exceeds maximum context length"},
		{"Cerebras' empty 400, large request", 400, "", big, ai.ClassContextOverflow, "Bad Request"},
		{"an empty 400, small request", 400, "", "hi", ai.ClassServer, "Bad Request"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, m, _ := fixture(t, gpt41, providertest.Status(tt.status, tt.body))
			evs, msg := stream(t, m, &ai.Request{Messages: []ai.Message{ai.UserText(tt.prompt, 1)}})
			pe := providertest.ProviderError(t, evs)
			if pe.Class != tt.class || pe.Message != tt.says || msg.StopReason != ai.StopError {
				t.Errorf("%s %q, want %s %q", pe.Class, pe.Message, tt.class, tt.says)
			}
		})
	}
}
