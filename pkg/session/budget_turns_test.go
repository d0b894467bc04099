package session

import (
	"strings"
	"testing"

	"gopi/pkg/ai"
)

// A user message sent while a tool call is still owed its result (a
// steering message) belongs to the turn of the call: the budget drops
// that whole turn, never leaving a result without its call. Tokens are
// exactly the kept messages' estimates.
func TestBudgetKeepsAToolCallWithItsResult(t *testing.T) {
	t.Parallel()
	var b pathBuilder
	b.user("q1")
	b.msg(ai.Message{Role: ai.RoleAssistant, Content: []ai.Content{ai.ToolCallContent("c1", "read", []byte(`{}`))}})
	b.user("steer")
	b.msg(ai.Message{Role: ai.RoleToolResult, ToolCallID: "c1", Content: []ai.Content{ai.TextContent("r")}})
	b.answer("a1")
	b.user("q2")
	b.answer("a2")
	// four messages fit: the turn of q2 (two) but not the steered one (five)
	ctx := BuildContext(b.es, Budget{ContextWindow: 400, Estimate: hundred})
	var got []string
	for _, m := range ctx.Messages {
		got = append(got, m.Text())
	}
	if strings.Join(got, " ") != "q2 a2" || ctx.Dropped.Turns != 1 || ctx.Dropped.Messages != 5 || ctx.Tokens != 200 || ctx.Over {
		t.Errorf("context %q, dropped %+v, %d tokens, over %v; want q2 a2, one turn of 5 dropped, 200 tokens", got, ctx.Dropped, ctx.Tokens, ctx.Over)
	}
	all := BuildContext(b.es, Budget{})
	sum := 0
	for _, m := range all.Messages {
		sum += EstimateTokens(m)
	}
	if len(all.Messages) != 7 || all.Tokens != sum {
		t.Errorf("unbounded: %d messages, %d tokens; want 7 and their sum %d", len(all.Messages), all.Tokens, sum)
	}
}
