package responses

import (
	"context"
	"fmt"
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

func TestRetriesThenSuccess(t *testing.T) {
	srv, m, sl := fixture(t, codex,
		providertest.Status(429, `{"error":{"message":"Rate limit reached for gpt-5-codex on tokens per min (TPM)","type":"requests","param":null,"code":"rate_limit_exceeded"}}`, "retry-after-ms", "1500"),
		providertest.Status(500, `{"error":{"message":"The server had an error while processing your request.","type":"server_error","param":null,"code":null}}`),
		providertest.SSE(providertest.File(t, "testdata/text.sse")))
	evs, msg := stream(t, m, nil)
	if msg.Text() != "Hello, world!" || len(srv.Requests()) != 3 {
		t.Fatalf("final %q after %d requests", msg.Text(), len(srv.Requests()))
	}
	if diff := cmp.Diff([]time.Duration{1500 * time.Millisecond, 3 * time.Second}, sl.Delays); diff != "" {
		t.Errorf("sleeps (-want +got):\n%s", diff)
	}
	if evs[len(evs)-2].Type != ai.EventRetryEnd || !evs[len(evs)-2].Retry.Success {
		t.Errorf("events %v", providertest.Types(evs))
	}
}

func TestHTTPErrorsNotRetried(t *testing.T) {
	tests := []struct {
		name    string
		handler http.HandlerFunc
		class   ai.Class
		msg     string
	}{
		{"401 echoing the key", providertest.Status(401, `{"error":{"message":"Incorrect API key provided: `+testKey+`.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`),
			ai.ClassAuth, "[REDACTED]"},
		{"insufficient quota", providertest.Status(429, `{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`),
			ai.ClassQuota, "current quota"},
		{"context length", providertest.Status(400, `{"error":{"message":"Your input exceeds the context window of this model. Please adjust your input and try again.","type":"invalid_request_error","param":"input","code":"context_length_exceeded"}}`),
			ai.ClassContextOverflow, "context window"},
		{"unknown model", providertest.Status(404, `{"error":{"message":"The model 'gpt-9-codex' does not exist or you do not have access to it.","type":"invalid_request_error","param":null,"code":"model_not_found"}}`),
			ai.ClassServer, "does not exist"},
		{"not json", providertest.Status(400, `bad request from a proxy`), ai.ClassServer, "bad request from a proxy"},
		// Proxies in front of the API answer in their own shapes; the user
		// reads the message, never the raw JSON.
		{"detail of a proxy", providertest.Status(400, `{"detail":"Unsupported parameter: reasoning.summary"}`), ai.ClassServer, "Unsupported parameter: reasoning.summary"},
		{"error as text", providertest.Status(400, `{"error":"model gpt-9 not found"}`), ai.ClassServer, "model gpt-9 not found"},
		{"array of errors", providertest.Status(400, `[{"error":{"code":400,"message":"The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}}]`),
			ai.ClassContextOverflow, "input token count (1200000)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, m, sl := fixture(t, codex, tt.handler)
			evs, msg := stream(t, m, nil)
			pe := providertest.ProviderError(t, evs)
			if pe.Class != tt.class || !strings.Contains(msg.ErrorMessage, tt.msg) || strings.Contains(msg.ErrorMessage, `{"`) || msg.StopReason != ai.StopError {
				t.Errorf("class %s message %q stop %s; want %s containing %q", pe.Class, msg.ErrorMessage, msg.StopReason, tt.class, tt.msg)
			}
			if len(srv.Requests()) != 1 || len(sl.Delays) != 0 {
				t.Errorf("requests %d, sleeps %v: want no retry", len(srv.Requests()), sl.Delays)
			}
			providertest.AssertNoSecret(t, evs, testKey)
		})
	}
}

// failedStream is a stream that starts an answer and ends with event.
func failedStream(event string) string {
	return sseEvents(
		`{"type":"response.created","sequence_number":0,"response":{"id":"resp_f","object":"response","status":"in_progress","output":[],"usage":null}}`,
		`{"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"id":"msg_f","type":"message","status":"in_progress","content":[],"role":"assistant"}}`,
		`{"type":"response.output_text.delta","sequence_number":2,"item_id":"msg_f","output_index":0,"content_index":0,"delta":"Partial"}`,
		event)
}

func responseFailed(code, message string) string {
	return failedStream(fmt.Sprintf(`{"type":"response.failed","sequence_number":3,"response":{"id":"resp_f","object":"response","status":"failed",`+
		`"error":{"code":%q,"message":%q},"incomplete_details":null,"output":[],"usage":null}}`, code, message))
}

// Failures reported inside the stream are classified by their code: the
// ones waiting can fix are retried, the others end the request at once.
func TestStreamFailuresClassified(t *testing.T) {
	tests := []struct {
		name     string
		stream   string
		class    ai.Class
		attempts int
		msg      string
	}{
		{"context overflow", responseFailed("context_length_exceeded", "Your input exceeds the context window of this model."),
			ai.ClassContextOverflow, 1, "context_length_exceeded"},
		{"rate limit", responseFailed("rate_limit_exceeded", "Rate limit reached for gpt-5-codex."), ai.ClassRateLimit, 3, "Rate limit reached"},
		{"quota", responseFailed("insufficient_quota", "You exceeded your current quota."), ai.ClassQuota, 1, "current quota"},
		{"server error", responseFailed("server_error", "The model failed to generate a response."), ai.ClassServer, 3, "server_error"},
		{"overloaded", responseFailed("server_is_overloaded", "The server is overloaded."), ai.ClassOverloaded, 3, "server_is_overloaded"},
		{"invalid prompt", responseFailed("invalid_prompt", "Invalid prompt: flagged as potentially violating our usage policy."), ai.ClassServer, 1, "invalid_prompt"},
		{"failed without error", failedStream(`{"type":"response.failed","response":{"status":"failed","error":null}}`), ai.ClassServer, 3, "without an error message"},
		{"error event", failedStream(`{"type":"error","sequence_number":3,"code":"rate_limit_exceeded","message":"Too many requests.","param":null}`),
			ai.ClassRateLimit, 3, "Too many requests"},
		{"error event with an object", failedStream(`{"type":"error","sequence_number":3,"error":{"type":"invalid_request_error","code":"context_length_exceeded","message":"Too long.","param":"input"}}`),
			ai.ClassContextOverflow, 1, "Too long"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			handlers := make([]http.HandlerFunc, tt.attempts)
			for i := range handlers {
				handlers[i] = providertest.SSE(tt.stream)
			}
			srv, m, _ := fixture(t, codex, handlers...)
			evs, msg := stream(t, m, nil)
			pe := providertest.ProviderError(t, evs)
			if pe.Class != tt.class || !strings.Contains(msg.ErrorMessage, tt.msg) || strings.Contains(msg.ErrorMessage, `{"`) || msg.StopReason != ai.StopError {
				t.Errorf("class %s message %q stop %s; want %s containing %q", pe.Class, msg.ErrorMessage, msg.StopReason, tt.class, tt.msg)
			}
			if len(srv.Requests()) != tt.attempts {
				t.Errorf("requests %d, want %d", len(srv.Requests()), tt.attempts)
			}
			if raw := string(msg.Extra["rawStopReason"]); strings.Contains(tt.stream, "response.failed") && raw != `"failed"` {
				t.Errorf("rawStopReason %s, want the failed response's status", raw)
			}
		})
	}
}

func TestErrorEventMidStreamIsRetriedWithoutPartial(t *testing.T) {
	_, m, _ := fixture(t, codex,
		providertest.SSE(providertest.File(t, "testdata/error_midstream.sse")),
		providertest.SSE(providertest.File(t, "testdata/text.sse")))
	evs, msg := stream(t, m, nil)
	if msg.Text() != "Hello, world!" || len(msg.Content) != 1 {
		t.Fatalf("final content %+v; the failed attempt's partial must not be kept", msg.Content)
	}
	if !slices.ContainsFunc(evs, func(e ai.Event) bool {
		return e.Type == ai.EventRetryStart && strings.Contains(e.Retry.ErrorMessage, "server_error")
	}) {
		t.Errorf("events %v", providertest.Types(evs))
	}
}

func incomplete(reason string) string {
	return failedStream(fmt.Sprintf(`{"type":"response.incomplete","sequence_number":3,"response":{"id":"resp_f","object":"response","status":"incomplete",`+
		`"incomplete_details":{"reason":%q},"output":[],"usage":{"input_tokens":10,"input_tokens_details":{"cached_tokens":0},`+
		`"output_tokens":100,"output_tokens_details":{"reasoning_tokens":90},"total_tokens":110}}}`, reason))
}

func TestIncomplete(t *testing.T) {
	t.Run("max output tokens stops for length", func(t *testing.T) {
		srv, m, _ := fixture(t, codex, providertest.SSE(incomplete("max_output_tokens")))
		evs, msg := stream(t, m, &ai.Request{MaxTokens: 100, Messages: []ai.Message{ai.UserText("hi", 1)}})
		if evs[len(evs)-1].Type != ai.EventDone || msg.StopReason != ai.StopLength || msg.Text() != "Partial" || msg.Usage.Output != 100 {
			t.Errorf("last %s stop %s text %q usage %+v", evs[len(evs)-1].Type, msg.StopReason, msg.Text(), msg.Usage)
		}
		if got := string(msg.Extra["rawStopReason"]); got != `"incomplete.max_output_tokens"` {
			t.Errorf("rawStopReason %s, want pi's status.reason", got)
		}
		providertest.AssertJSON(t, `{"model":"gpt-5-codex","input":[{"role":"user","content":[{"type":"input_text","text":"hi"}]}],
			"stream":true,"store":false,"include":["reasoning.encrypted_content"],"max_output_tokens":100,"reasoning":{"summary":"auto"}}`,
			srv.Requests()[0].Body)
	})
	t.Run("content filter is an error", func(t *testing.T) {
		srv, m, _ := fixture(t, codex, providertest.SSE(incomplete("content_filter")))
		evs, msg := stream(t, m, nil)
		if pe := providertest.ProviderError(t, evs); pe.Class != ai.ClassServer || pe.Retryable || !strings.Contains(msg.ErrorMessage, "content filter") {
			t.Errorf("error %+v", pe)
		}
		if got := string(msg.Extra["rawStopReason"]); got != `"incomplete.content_filter"` {
			t.Errorf("rawStopReason %s", got)
		}
		if len(srv.Requests()) != 1 {
			t.Errorf("requests %d, want 1", len(srv.Requests()))
		}
	})
}

// A stream that ends before response.completed is a truncation, retried,
// whether the connection was cut or closed cleanly.
func TestCutStreams(t *testing.T) {
	tools := providertest.File(t, "testdata/tools.sse")
	text := providertest.File(t, "testdata/text.sse")
	tests := []struct {
		name  string
		h     http.HandlerFunc
		check func(*testing.T, ai.Message)
	}{
		{"mid text", providertest.Cut(text[:strings.Index(text, "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"sequence_number\":5")]),
			func(t *testing.T, m ai.Message) {
				if m.Text() != "Hello" {
					t.Errorf("partial text %q", m.Text())
				}
			}},
		{"mid tool call", providertest.Cut(tools[:strings.Index(tools, `th\": \"go.mod\"}`)]), func(t *testing.T, m ai.Message) {
			calls := m.ToolCalls()
			if len(calls) != 1 || !strings.Contains(string(calls[0].Arguments), ai.InvalidArgumentsKey) {
				t.Errorf("calls %+v: the cut call's arguments must be marked incomplete", calls)
			}
		}},
		{"clean end before completed", providertest.SSE(text[:strings.Index(text, "event: response.completed")]), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, m, _ := fixture(t, codex, tt.h, tt.h, tt.h)
			evs, msg := stream(t, m, nil)
			if pe := providertest.ProviderError(t, evs); pe.Class != ai.ClassNetwork || !strings.Contains(pe.Message, "truncated") || msg.StopReason != ai.StopError {
				t.Fatalf("error %+v stop %s, want a truncation", pe, msg.StopReason)
			}
			if len(srv.Requests()) != 3 {
				t.Errorf("requests %d, want 3", len(srv.Requests()))
			}
			if tt.check != nil {
				tt.check(t, msg)
			}
		})
	}
}

func TestMalformedEventIsRetried(t *testing.T) {
	bad := "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\n\n"
	srv, m, _ := fixture(t, codex, providertest.SSE(bad), providertest.SSE(providertest.File(t, "testdata/text.sse")))
	_, msg := stream(t, m, nil)
	if msg.Text() != "Hello, world!" || len(srv.Requests()) != 2 {
		t.Errorf("text %q after %d requests", msg.Text(), len(srv.Requests()))
	}
}

func TestStallAndCancel(t *testing.T) {
	text := providertest.File(t, "testdata/text.sse")
	prefix := text[:strings.Index(text, "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"sequence_number\":5")]
	t.Run("stall ends with an idle timeout", func(t *testing.T) {
		srv := providertest.New(t, providertest.Stall(prefix), providertest.Stall(prefix))
		m := New(Config{Info: codex, APIKey: testKey, BaseURL: srv.URL, HTTPClient: srv.Client(), IdleTimeout: 500 * time.Millisecond,
			Retry: provider.Policy{MaxAttempts: 2}, Sleep: (&providertest.Sleeper{}).Sleep}) // a stall is retried
		evs, msg := stream(t, m, nil)
		if pe := providertest.ProviderError(t, evs); pe.Class != ai.ClassTimeout || msg.Text() != "Hello" {
			t.Fatalf("error %+v text %q", pe, msg.Text())
		}
		if n := len(srv.Requests()); n != 2 {
			t.Errorf("requests = %d, want 2 (a stall is retried)", n)
		}
	})
	t.Run("cancel aborts with the partial", func(t *testing.T) {
		srv := providertest.New(t, providertest.Stall(prefix))
		m := New(Config{Info: codex, APIKey: testKey, BaseURL: srv.URL, HTTPClient: srv.Client()})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var last ai.Event
		for e := range m.Stream(ctx, &ai.Request{Messages: []ai.Message{ai.UserText("hi", 1)}}) {
			last = e
			if e.Type == ai.EventTextDelta {
				cancel()
			}
		}
		if last.Type != ai.EventError || last.Message.StopReason != ai.StopAborted || last.Message.Text() != "Hello" || ai.ClassOf(last.Err) != ai.ClassAborted {
			t.Fatalf("last = %s %s %q %v", last.Type, last.Message.StopReason, last.Message.Text(), last.Err)
		}
	})
}

func TestConsumerStopsEarly(t *testing.T) {
	_, m, _ := fixture(t, codex, providertest.SSE(providertest.File(t, "testdata/reasoning.sse")))
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
