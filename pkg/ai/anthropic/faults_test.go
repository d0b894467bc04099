package anthropic

import (
	"context"
	"iter"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"gopi/pkg/ai"
	"gopi/pkg/ai/provider"
	"gopi/pkg/ai/provider/providertest"
)

func retries(evs []ai.Event) (starts, ends []ai.RetryInfo) {
	for _, e := range evs {
		switch e.Type {
		case ai.EventRetryStart:
			starts = append(starts, *e.Retry)
		case ai.EventRetryEnd:
			ends = append(ends, *e.Retry)
		}
	}
	return starts, ends
}

func TestRetryAfterThenSuccess(t *testing.T) {
	text := providertest.File(t, "testdata/text.sse")
	srv, m, sl := fixture(t,
		providertest.Status(429, `{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}`, "retry-after", "7"),
		providertest.Status(529, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_1"}`),
		providertest.SSE(text))
	evs, msg := stream(t, m, nil)

	if msg.StopReason != ai.StopStop || msg.Text() != "Hello, world!" {
		t.Fatalf("final = %s %q", msg.StopReason, msg.Text())
	}
	if got := len(srv.Requests()); got != 3 {
		t.Fatalf("requests = %d, want 3", got)
	}
	// retry-after is honoured; the second wait is backoff: 4s base*2, half + 0.5*half.
	if diff := cmp.Diff([]time.Duration{7 * time.Second, 3 * time.Second}, sl.Delays); diff != "" {
		t.Errorf("sleeps (-want +got):\n%s", diff)
	}
	starts, ends := retries(evs)
	if len(starts) != 2 || starts[0].Attempt != 1 || starts[0].MaxAttempts != 3 || starts[0].Delay != 7*time.Second ||
		!strings.Contains(starts[0].ErrorMessage, "rate_limit") || !strings.Contains(starts[1].ErrorMessage, "overloaded") {
		t.Errorf("retry starts = %+v", starts)
	}
	if len(ends) != 1 || !ends[0].Success || ends[0].Attempt != 3 {
		t.Errorf("retry ends = %+v", ends)
	}
	// Each attempt starts with a fresh start event; retry_end comes before done.
	types := providertest.Types(evs)
	if types[0] != ai.EventStart || types[1] != ai.EventRetryStart || types[2] != ai.EventStart || types[len(types)-2] != ai.EventRetryEnd {
		t.Errorf("event types = %v", types)
	}
}

func TestOverloadedExhaustsAttempts(t *testing.T) {
	body := `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`
	srv, m, sl := fixture(t, providertest.Status(529, body), providertest.Status(529, body), providertest.Status(529, body))
	evs, msg := stream(t, m, nil)

	pe := providertest.ProviderError(t, evs)
	if pe.Class != ai.ClassOverloaded || pe.Status != 529 || msg.StopReason != ai.StopError {
		t.Fatalf("error = %+v, stop %s", pe, msg.StopReason)
	}
	if len(srv.Requests()) != 3 || len(sl.Delays) != 2 {
		t.Errorf("requests %d, sleeps %v", len(srv.Requests()), sl.Delays)
	}
	if _, ends := retries(evs); len(ends) != 1 || ends[0].Success || ends[0].Attempt != 3 {
		t.Errorf("retry end = %+v", ends)
	}
}

func TestNotRetried(t *testing.T) {
	tests := []struct {
		name    string
		handler http.HandlerFunc
		class   ai.Class
		msg     string
	}{
		{"401 echoing the key", providertest.Status(401,
			`{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key: `+testKey+`"}}`), ai.ClassAuth, "[REDACTED]"},
		{"403", providertest.Status(403, `{"type":"error","error":{"type":"permission_error","message":"no access"}}`), ai.ClassAuth, "no access"},
		{"credit balance", providertest.Status(400,
			`{"type":"error","error":{"type":"invalid_request_error","message":"Your credit balance is too low to access the Anthropic API."}}`), ai.ClassQuota, "credit balance"},
		{"spend limit 429", providertest.Status(429,
			`{"type":"error","error":{"type":"rate_limit_error","message":"spend limit","details":{"error_code":"enforced_spend_limit_reached"}}}`), ai.ClassQuota, "spend limit"},
		{"prompt too long", providertest.Status(400,
			`{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 215123 tokens > 200000 maximum"}}`), ai.ClassContextOverflow, "prompt is too long"},
		{"413", providertest.Status(413, `{"type":"error","error":{"type":"request_too_large","message":"Request exceeds the maximum allowed number of bytes."}}`),
			ai.ClassContextOverflow, "maximum allowed"},
		{"retry-after too long", providertest.Status(429, `{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`, "retry-after", "3600"),
			ai.ClassRateLimit, "retry after 1h0m0s"},
		{"x-should-retry false", providertest.Status(500, `{"type":"error","error":{"type":"api_error","message":"boom"}}`, "x-should-retry", "false"),
			ai.ClassServer, "boom"},
		{"plain text body", providertest.Status(404, "no such route", "Content-Type", "text/plain"), ai.ClassServer, "no such route"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, m, sl := fixture(t, tt.handler)
			evs, msg := stream(t, m, nil)
			pe := providertest.ProviderError(t, evs)
			if pe.Class != tt.class || !strings.Contains(msg.ErrorMessage, tt.msg) || msg.StopReason != ai.StopError {
				t.Errorf("class %s message %q stop %s; want %s containing %q", pe.Class, msg.ErrorMessage, msg.StopReason, tt.class, tt.msg)
			}
			if len(srv.Requests()) != 1 || len(sl.Delays) != 0 {
				t.Errorf("requests %d, sleeps %v: want one request, no retry", len(srv.Requests()), sl.Delays)
			}
			if starts, ends := retries(evs); len(starts)+len(ends) != 0 {
				t.Errorf("retry events for a request that was not retried")
			}
			providertest.AssertNoSecret(t, evs, testKey)
		})
	}
}

func TestErrorEventMidStreamIsRetriedWithoutPartial(t *testing.T) {
	_, m, _ := fixture(t,
		providertest.SSE(providertest.File(t, "testdata/error_midstream.sse")),
		providertest.SSE(providertest.File(t, "testdata/text.sse")))
	evs, msg := stream(t, m, nil)

	if msg.Text() != "Hello, world!" || len(msg.Content) != 1 {
		t.Fatalf("final content = %+v; the failed attempt's partial must not be kept", msg.Content)
	}
	want := []ai.EventType{ai.EventStart, ai.EventTextStart, ai.EventTextDelta, ai.EventRetryStart,
		ai.EventStart, ai.EventTextStart, ai.EventTextDelta, ai.EventTextDelta, ai.EventTextEnd, ai.EventRetryEnd, ai.EventDone}
	if diff := cmp.Diff(want, providertest.Types(evs)); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

func TestCutStreams(t *testing.T) {
	full := providertest.File(t, "testdata/thinking_tools.sse")
	midText := full[:strings.Index(full, "Let me")+3]
	midTool := full[:strings.Index(full, `th\": \".`)]
	noStop := strings.TrimSuffix(full, "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")
	tests := []struct {
		name    string
		handler http.HandlerFunc
		check   func(t *testing.T, msg ai.Message)
	}{
		{"mid text", providertest.Cut(midText), func(t *testing.T, msg ai.Message) {
			if len(msg.ToolCalls()) != 0 {
				t.Errorf("tool calls in a message cut before them")
			}
		}},
		{"mid tool call", providertest.Cut(midTool), func(t *testing.T, msg ai.Message) {
			calls := msg.ToolCalls()
			if len(calls) != 1 || !strings.Contains(string(calls[0].Arguments), ai.InvalidArgumentsKey) {
				t.Errorf("cut tool call = %+v, want incomplete arguments under %s", calls, ai.InvalidArgumentsKey)
			}
		}},
		{"clean end without message_stop", providertest.SSE(noStop), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, m, _ := fixture(t, tt.handler, tt.handler, tt.handler)
			evs, msg := stream(t, m, nil)
			pe := providertest.ProviderError(t, evs)
			t.Log(pe.Message)
			if pe.Class != ai.ClassNetwork || msg.StopReason != ai.StopError || !strings.Contains(pe.Message, "truncated") {
				t.Fatalf("error %+v stop %s, want a truncation", pe, msg.StopReason)
			}
			if len(srv.Requests()) != 3 {
				t.Errorf("requests = %d, want 3 (truncations are retried)", len(srv.Requests()))
			}
			if tt.check != nil {
				tt.check(t, msg)
			}
		})
	}
}

func TestStallEndsWithTimeout(t *testing.T) {
	stall := providertest.Stall("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{}}}\n\n")
	srv2 := providertest.New(t, stall, stall)
	m := New(Config{Info: sonnet, APIKey: testKey, BaseURL: srv2.URL, HTTPClient: srv2.Client(), IdleTimeout: 500 * time.Millisecond,
		Retry: provider.Policy{MaxAttempts: 2}, Sleep: (&providertest.Sleeper{}).Sleep}) // a stall is retried
	evs, msg := stream(t, m, nil)
	if pe := providertest.ProviderError(t, evs); pe.Class != ai.ClassTimeout || msg.StopReason != ai.StopError {
		t.Fatalf("error %+v stop %s, want timeout", pe, msg.StopReason)
	}
	if n := len(srv2.Requests()); n != 2 {
		t.Errorf("requests = %d, want 2 (a stall is retried)", n)
	}
}

func TestCancelAbortsWithPartial(t *testing.T) {
	full := providertest.File(t, "testdata/text.sse")
	srv2 := providertest.New(t, providertest.Stall(full[:strings.Index(full, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\", world")]))
	m := New(Config{Info: sonnet, APIKey: testKey, BaseURL: srv2.URL, HTTPClient: srv2.Client()})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var evs []ai.Event
	for e := range m.Stream(ctx, &ai.Request{Messages: []ai.Message{ai.UserText("hi", 1)}}) {
		evs = append(evs, e)
		if e.Type == ai.EventTextDelta {
			cancel()
		}
	}
	last := evs[len(evs)-1]
	if last.Type != ai.EventError || last.Message.StopReason != ai.StopAborted || last.Message.Text() != "Hello" {
		t.Fatalf("last = %s %s %q", last.Type, last.Message.StopReason, last.Message.Text())
	}
	if ai.ClassOf(last.Err) != ai.ClassAborted {
		t.Errorf("class = %s", ai.ClassOf(last.Err))
	}
	if len(srv2.Requests()) != 1 {
		t.Errorf("a cancelled request was retried")
	}
}

func TestConsumerStopsEarly(t *testing.T) {
	_, m, _ := fixture(t, providertest.SSE(providertest.File(t, "testdata/thinking_tools.sse")))
	var types []ai.EventType
	for e := range iter.Seq[ai.Event](m.Stream(context.Background(), &ai.Request{})) {
		types = append(types, e.Type)
		if e.Type == ai.EventThinkingDelta {
			break
		}
	}
	if !slices.Equal(types, []ai.EventType{ai.EventStart, ai.EventThinkingStart, ai.EventThinkingDelta}) {
		t.Errorf("types = %v", types)
	}
}
