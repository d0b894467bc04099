package provider

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"go.uber.org/goleak"

	"gopi/pkg/ai"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestBackoff(t *testing.T) {
	p := Policy{BaseDelay: time.Second, MaxDelay: 5 * time.Second, Rand: func() float64 { return 0 }}
	want := []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 2500 * time.Millisecond, 2500 * time.Millisecond}
	for i, w := range want {
		if got := p.Backoff(i + 1); got != w {
			t.Errorf("Backoff(%d) = %s, want %s", i+1, got, w)
		}
	}
	p.Rand = func() float64 { return 0.999999 }
	if got := p.Backoff(1); got < 999*time.Millisecond || got > time.Second {
		t.Errorf("full jitter Backoff(1) = %s", got)
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		h    http.Header
		want time.Duration
	}{
		{http.Header{"Retry-After-Ms": {"250"}, "Retry-After": {"9"}}, 250 * time.Millisecond},
		{http.Header{"Retry-After": {"7"}}, 7 * time.Second},
		{http.Header{"Retry-After": {"1.5"}}, 1500 * time.Millisecond},
		{http.Header{"Retry-After": {now.Add(30 * time.Second).Format(http.TimeFormat)}}, 30 * time.Second},
		{http.Header{"Retry-After": {"soon"}}, 0},
		{http.Header{"Retry-After": {"-3"}}, 0},
		{http.Header{}, 0},
	}
	for _, tt := range tests {
		if got := RetryAfter(tt.h, now); got != tt.want {
			t.Errorf("RetryAfter(%v) = %s, want %s", tt.h, got, tt.want)
		}
	}
}

func TestClassify(t *testing.T) {
	tests := []struct {
		name      string
		status    int
		e         APIError
		class     ai.Class
		retryable bool
	}{
		{"408", 408, APIError{}, ai.ClassTimeout, true},
		{"409", 409, APIError{}, ai.ClassServer, true},
		{"429", 429, APIError{Type: "rate_limit_error"}, ai.ClassRateLimit, true},
		{"429 quota", 429, APIError{Code: "insufficient_quota", Message: "You exceeded your current quota"}, ai.ClassQuota, false},
		{"500", 500, APIError{Type: "api_error"}, ai.ClassServer, true},
		{"503", 503, APIError{}, ai.ClassOverloaded, true},
		{"504", 504, APIError{}, ai.ClassServer, true},
		{"505", 505, APIError{}, ai.ClassServer, false},
		{"529", 529, APIError{Type: "overloaded_error"}, ai.ClassOverloaded, true},
		{"401", 401, APIError{}, ai.ClassAuth, false},
		{"402", 402, APIError{Type: "billing_error"}, ai.ClassQuota, false},
		{"413", 413, APIError{}, ai.ClassContextOverflow, false},
		{"400 overflow", 400, APIError{Message: "input length and max_tokens exceed context limit: 190000 + 32000 > 200000, decrease input length or max_tokens"}, ai.ClassContextOverflow, false},
		{"400 prompt too long", 400, APIError{Message: "prompt is too long: 1 tokens > 0 maximum"}, ai.ClassContextOverflow, false},
		{"stream overloaded", 0, APIError{Type: "overloaded_error"}, ai.ClassOverloaded, true},
		{"stream invalid", 0, APIError{Type: "invalid_request_error", Message: "bad"}, ai.ClassServer, false},
	}
	for _, tt := range tests {
		pe := Classify(Status{Code: tt.status}, tt.e)
		if pe.Class != tt.class || pe.Retryable != tt.retryable || pe.Status != tt.status {
			t.Errorf("%s: %s retryable=%v, want %s %v", tt.name, pe.Class, pe.Retryable, tt.class, tt.retryable)
		}
	}
}

func TestScrub(t *testing.T) {
	if got := Scrub("key sk-123456 and sk-123456 again", "sk-123456", "", "ab"); got != "key [REDACTED] and [REDACTED] again" {
		t.Errorf("Scrub = %q", got)
	}
}

func TestNormalize(t *testing.T) {
	info := ai.Info{ID: "m1", Provider: "p", API: "a"}
	call := func(id string) ai.Content { return ai.ToolCallContent(id, "ls", nil) }
	result := func(id string) ai.Message {
		return ai.Message{Role: ai.RoleToolResult, ToolCallID: id, Content: []ai.Content{ai.TextContent("ok")}}
	}
	in := []ai.Message{
		ai.UserText("q", 1),
		{Role: ai.RoleAssistant, Provider: "p", API: "a", Model: "m1", StopReason: ai.StopToolUse, Content: []ai.Content{call("a"), call("b")}},
		result("a"), result("zzz"), result("a"),
		ai.UserText("next", 2),
		{Role: ai.RoleAssistant, Provider: "p", API: "a", Model: "m1", StopReason: ai.StopAborted, Content: []ai.Content{call("c")}},
		{Role: ai.RoleAssistant, Provider: "other", API: "a", Model: "m2", StopReason: ai.StopToolUse, Content: []ai.Content{
			{Type: ai.TypeThinking, Thinking: "t", ThinkingSignature: "s"}, {Type: ai.TypeThinking, Thinking: "x", Redacted: true}, call("d")}},
	}
	out := Normalize(in, info)
	var got []string
	for _, m := range out {
		s := m.Role
		for _, c := range m.Content {
			s += " " + c.Type + ":" + c.Text + c.Thinking + c.ID
		}
		got = append(got, s+" "+m.ToolCallID)
	}
	want := []string{
		"user text:q ", "assistant toolCall:a toolCall:b ", "toolResult text:ok a", "toolResult text:No result provided b",
		"user text:next ", "assistant text:t toolCall:d ", "toolResult text:No result provided d",
	}
	if len(got) != len(want) {
		t.Fatalf("got %q", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("message %d = %q, want %q", i, got[i], want[i])
		}
	}
	if in[7].Content[0].Type != ai.TypeThinking {
		t.Error("Normalize modified its input")
	}
}

func TestRunnerCancelDuringBackoff(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	r := Runner{Info: ai.Info{ID: "m"}, Sleep: func(ctx context.Context, d time.Duration) error { cancel(); return ctx.Err() }}
	var types []ai.EventType
	var last ai.Event
	for e := range r.Stream(ctx, func(ctx context.Context, b *ai.Builder) (ai.StopReason, error) {
		return "", &ai.ProviderError{Class: ai.ClassOverloaded, Retryable: true, Message: "busy"}
	}) {
		types = append(types, e.Type)
		last = e
	}
	want := []ai.EventType{ai.EventStart, ai.EventRetryStart, ai.EventRetryEnd, ai.EventStart, ai.EventError}
	if len(types) != len(want) {
		t.Fatalf("types = %v", types)
	}
	if last.Message.StopReason != ai.StopAborted || ai.ClassOf(last.Err) != ai.ClassAborted {
		t.Errorf("last = %s %v", last.Message.StopReason, last.Err)
	}
}

func TestRunnerScrubsAndWrapsPlainErrors(t *testing.T) {
	r := Runner{Info: ai.Info{ID: "m"}, Secrets: []string{"sekret-key"}}
	var last ai.Event
	for e := range r.Stream(context.Background(), func(ctx context.Context, b *ai.Builder) (ai.StopReason, error) {
		return "", errors.New("echo: sekret-key")
	}) {
		last = e
	}
	if last.Message.ErrorMessage != "internal: echo: [REDACTED]" || ai.ClassOf(last.Err) != ai.ClassInternal {
		t.Errorf("last = %q %v", last.Message.ErrorMessage, last.Err)
	}
}

func TestRunnerStopsWhenConsumerStopsAtRetry(t *testing.T) {
	r := Runner{Info: ai.Info{ID: "m"}, Sleep: func(context.Context, time.Duration) error {
		t.Error("slept after the consumer stopped")
		return nil
	}}
	calls := 0
	for e := range r.Stream(context.Background(), func(ctx context.Context, b *ai.Builder) (ai.StopReason, error) {
		calls++
		return "", &ai.ProviderError{Class: ai.ClassServer, Retryable: true, Message: "x"}
	}) {
		if e.Type == ai.EventRetryStart {
			break
		}
	}
	if calls != 1 {
		t.Errorf("attempts = %d", calls)
	}
}
