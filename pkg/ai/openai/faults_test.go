package openai

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"gopi/pkg/ai"
	"gopi/pkg/ai/provider"
	"gopi/pkg/ai/provider/providertest"
)

func TestRetriesThenSuccess(t *testing.T) {
	srv, m, sl := fixture(t, gpt41,
		providertest.Status(429, `{"error":{"message":"Rate limit reached for gpt-4.1 on tokens per min (TPM)","type":"requests","param":null,"code":"rate_limit_exceeded"}}`, "retry-after-ms", "1500"),
		providertest.Status(503, `{"error":{"message":"The server is overloaded","type":"service_unavailable_error","code":"server_is_overloaded"}}`),
		providertest.SSE(providertest.File(t, "testdata/text.sse")))
	evs, msg := stream(t, m, nil)
	if msg.Text() != "Hello, world!" || len(srv.Requests()) != 3 {
		t.Fatalf("final %q after %d requests", msg.Text(), len(srv.Requests()))
	}
	if diff := cmp.Diff([]time.Duration{1500 * time.Millisecond, 3 * time.Second}, sl.Delays); diff != "" {
		t.Errorf("sleeps (-want +got):\n%s", diff)
	}
	n := 0
	for _, e := range evs {
		if e.Type == ai.EventRetryStart {
			n++
		}
	}
	if n != 2 || evs[len(evs)-2].Type != ai.EventRetryEnd || !evs[len(evs)-2].Retry.Success {
		t.Errorf("retry events: %d starts, then %v", n, providertest.Types(evs))
	}
}

func TestNotRetried(t *testing.T) {
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
		{"context length", providertest.Status(400, `{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`),
			ai.ClassContextOverflow, "maximum context length"},
		{"local server string error", providertest.Status(400, `{"error":"the request exceeds the available context size, try increasing it"}`),
			ai.ClassContextOverflow, "context size"},
		{"model not found", providertest.Status(404, `{"error":{"message":"The model 'gpt-9' does not exist","type":"invalid_request_error","code":"model_not_found"}}`),
			ai.ClassServer, "does not exist"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, m, sl := fixture(t, gpt41, tt.handler)
			evs, msg := stream(t, m, nil)
			pe := providertest.ProviderError(t, evs)
			if pe.Class != tt.class || !strings.Contains(msg.ErrorMessage, tt.msg) {
				t.Errorf("class %s message %q; want %s containing %q", pe.Class, msg.ErrorMessage, tt.class, tt.msg)
			}
			if len(srv.Requests()) != 1 || len(sl.Delays) != 0 {
				t.Errorf("requests %d, sleeps %v: want no retry", len(srv.Requests()), sl.Delays)
			}
			providertest.AssertNoSecret(t, evs, testKey)
		})
	}
}

func TestErrorChunkMidStreamIsRetried(t *testing.T) {
	_, m, _ := fixture(t, gpt41,
		providertest.SSE(providertest.File(t, "testdata/error_midstream.sse")),
		providertest.SSE(providertest.File(t, "testdata/text.sse")))
	evs, msg := stream(t, m, nil)
	if msg.Text() != "Hello, world!" || len(msg.Content) != 1 {
		t.Fatalf("final content %+v; the failed attempt's partial must not be kept", msg.Content)
	}
	if evs[3].Type != ai.EventRetryStart || !strings.Contains(evs[3].Retry.ErrorMessage, "server_error") {
		t.Errorf("events %v", providertest.Types(evs))
	}
}

func TestCutStreams(t *testing.T) {
	tools := providertest.File(t, "testdata/tools.sse")
	text := providertest.File(t, "testdata/text.sse")
	tests := []struct {
		name  string
		h     http.HandlerFunc
		check func(*testing.T, ai.Message)
	}{
		{"mid text", providertest.Cut(text[:strings.Index(text, ", world")]), func(t *testing.T, m ai.Message) {
			if m.Text() != "Hello" {
				t.Errorf("partial text %q", m.Text())
			}
		}},
		{"mid tool call", providertest.Cut(tools[:strings.Index(tools, `th\": \"go.mod`)]), func(t *testing.T, m ai.Message) {
			for _, c := range m.ToolCalls() {
				if !strings.Contains(string(c.Arguments), ai.InvalidArgumentsKey) {
					t.Errorf("incomplete call %s has arguments %s", c.Name, c.Arguments)
				}
			}
		}},
		{"clean end before finish", providertest.SSE(text[:strings.Index(text, "data: {\"id\":\"chatcmpl-BxYz1\",\"object\":\"chat.completion.chunk\",\"created\":1752000000,\"model\":\"gpt-4.1-2025-04-14\",\"service_tier\":\"default\",\"system_fingerprint\":\"fp_b3f1157249\",\"choices\":[{\"index\":0,\"delta\":{},")]), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, m, _ := fixture(t, gpt41, tt.h, tt.h, tt.h)
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

func TestStallAndCancel(t *testing.T) {
	text := providertest.File(t, "testdata/text.sse")
	prefix := text[:strings.Index(text, "data: {\"id\":\"chatcmpl-BxYz1\",\"object\":\"chat.completion.chunk\",\"created\":1752000000,\"model\":\"gpt-4.1-2025-04-14\",\"service_tier\":\"default\",\"system_fingerprint\":\"fp_b3f1157249\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\", world")]
	t.Run("stall", func(t *testing.T) {
		srv := providertest.New(t, providertest.Stall(prefix), providertest.Stall(prefix))
		m := New(Config{Info: gpt41, APIKey: testKey, BaseURL: srv.URL, HTTPClient: srv.Client(), IdleTimeout: 500 * time.Millisecond,
			Retry: provider.Policy{MaxAttempts: 2}, Sleep: (&providertest.Sleeper{}).Sleep}) // a stall is retried
		evs, msg := stream(t, m, nil)
		if pe := providertest.ProviderError(t, evs); pe.Class != ai.ClassTimeout || msg.Text() != "Hello" {
			t.Fatalf("error %+v text %q", pe, msg.Text())
		}
		if n := len(srv.Requests()); n != 2 {
			t.Errorf("requests = %d, want 2 (a stall is retried)", n)
		}
	})
	t.Run("cancel", func(t *testing.T) {
		srv := providertest.New(t, providertest.Stall(prefix))
		m := New(Config{Info: gpt41, APIKey: testKey, BaseURL: srv.URL, HTTPClient: srv.Client()})
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

func TestRequestBodyQuirks(t *testing.T) {
	history := []ai.Message{
		{Role: ai.RoleUser, Content: []ai.Content{ai.TextContent("look"), ai.ImageContent("AAAA", "image/png")}},
		{Role: ai.RoleAssistant, API: API, Provider: "mistral", Model: "magistral", StopReason: ai.StopToolUse, Content: []ai.Content{
			{Type: ai.TypeThinking, Thinking: "hmm", ThinkingSignature: "reasoning_content"},
			ai.ToolCallContent("c1", "read", json.RawMessage(`{"path":"x.png"}`)), ai.ToolCallContent("c2", "ls", nil)}},
		{Role: ai.RoleToolResult, ToolCallID: "c1", ToolName: "read", Content: []ai.Content{ai.ImageContent("BBBB", "image/png")}},
	}
	req := &ai.Request{SystemPrompt: "sys", MaxTokens: 1000, Thinking: ai.ThinkingXHigh, Messages: history,
		Tools: []ai.ToolSpec{{Name: "read", Description: "Read a file.", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}}}
	info := ai.Info{ID: "magistral", Provider: "mistral", API: API, Reasoning: true}
	body, err := buildBody(info, DefaultQuirks("https://api.mistral.ai/v1"), req)
	if err != nil {
		t.Fatal(err)
	}
	providertest.AssertJSON(t, `{"model":"magistral","stream":true,"stream_options":{"include_usage":true},"max_tokens":1000,
	  "tools":[{"type":"function","function":{"name":"read","description":"Read a file.","parameters":{"type":"object","properties":{"path":{"type":"string"}}}}}],
	  "messages":[
		{"role":"system","content":"sys"},
		{"role":"user","content":[{"type":"text","text":"look"},{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}}]},
		{"role":"assistant","content":"<thinking>\nhmm\n</thinking>","tool_calls":[
			{"id":"c1","type":"function","function":{"name":"read","arguments":"{\"path\":\"x.png\"}"}},
			{"id":"c2","type":"function","function":{"name":"ls","arguments":"{}"}}]},
		{"role":"tool","content":"(see attached image)","tool_call_id":"c1","name":"read"},
		{"role":"user","content":[{"type":"text","text":"Attached image(s) from tool result:"},{"type":"image_url","image_url":{"url":"data:image/png;base64,BBBB"}}]},
		{"role":"tool","content":"No result provided","tool_call_id":"c2","name":"ls"}]}`, body)

	openaiBody, err := buildBody(ai.Info{ID: "gpt-5.2", Reasoning: true}, DefaultQuirks(""), &ai.Request{MaxTokens: 500, Thinking: ai.ThinkingXHigh})
	if err != nil {
		t.Fatal(err)
	}
	providertest.AssertJSON(t, `{"model":"gpt-5.2","stream":true,"stream_options":{"include_usage":true},"max_completion_tokens":500,
		"reasoning_effort":"xhigh","messages":[]}`, openaiBody)
}

func TestEffort(t *testing.T) {
	tests := []struct {
		level ai.ThinkingLevel
		id    string
		want  string
	}{
		{ai.ThinkingOff, "gpt-5", ""}, {"", "gpt-5", ""}, {ai.ThinkingMinimal, "gpt-5", "minimal"},
		{ai.ThinkingMinimal, "o3", "low"}, {ai.ThinkingMedium, "o4-mini", "medium"},
		{ai.ThinkingXHigh, "gpt-5.1", "high"}, {ai.ThinkingXHigh, "gpt-5.4", "xhigh"},
	}
	for _, tt := range tests {
		if got := effort(tt.level, tt.id); got != tt.want {
			t.Errorf("effort(%s, %s) = %q, want %q", tt.level, tt.id, got, tt.want)
		}
	}
}
