package ai

import "testing"

func TestContextTokensIsTheLastAnswerThatCounted(t *testing.T) {
	t.Parallel()
	msgs := []Message{
		{Role: RoleAssistant, Usage: Usage{Input: 100, Output: 20, CacheRead: 3, CacheWrite: 4}},
		{Role: RoleUser},
		{Role: RoleAssistant}, // an answer that counted nothing (aborted)
	}
	if n, ok := ContextTokens(msgs); !ok || n != 127 {
		t.Errorf("ContextTokens = %d, %v; want 127, true", n, ok)
	}
	if _, ok := ContextTokens(msgs[1:]); ok {
		t.Error("no answer counted tokens, yet ContextTokens found some")
	}
}
