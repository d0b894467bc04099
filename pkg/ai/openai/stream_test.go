package openai

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"gopi/pkg/ai"
	"gopi/pkg/ai/provider/providertest"
)

func TestStreamTextWithUsageChunk(t *testing.T) {
	srv, m, _ := fixture(t, gpt41, providertest.SSE(providertest.File(t, "testdata/text.sse")))
	evs, msg := stream(t, m, nil)

	want := []ai.EventType{ai.EventStart, ai.EventTextStart, ai.EventTextDelta, ai.EventTextDelta, ai.EventTextEnd, ai.EventDone}
	if diff := cmp.Diff(want, providertest.Types(evs)); diff != "" {
		t.Errorf("event types (-want +got):\n%s", diff)
	}
	if msg.Text() != "Hello, world!" || msg.StopReason != ai.StopStop || msg.API != API || msg.Model != "gpt-4.1" {
		t.Errorf("message = %q %s %s %s", msg.Text(), msg.StopReason, msg.API, msg.Model)
	}
	u := msg.Usage
	if u.Input != 476 || u.CacheRead != 1024 || u.Output != 12 || u.TotalTokens != 1512 {
		t.Errorf("usage = %+v", u)
	}
	if want := (476*2 + 1024*0.5 + 12*8) / 1e6; u.Cost.Total-want > 1e-12 || want-u.Cost.Total > 1e-12 {
		t.Errorf("cost = %v, want %v", u.Cost.Total, want)
	}
	req := srv.Requests()[0]
	if req.Path != "/chat/completions" || req.Header.Get("Authorization") != "Bearer "+testKey {
		t.Errorf("request %s, authorization %q", req.Path, req.Header.Get("Authorization"))
	}
	providertest.AssertJSON(t, `{"model":"gpt-4.1","stream":true,"stream_options":{"include_usage":true},
		"messages":[{"role":"developer","content":"You are terse."},{"role":"user","content":"hi"}]}`, req.Body)
}

func TestStreamInterleavedToolCalls(t *testing.T) {
	_, m, _ := fixture(t, gpt41, providertest.SSE(providertest.File(t, "testdata/tools.sse")))
	evs, msg := stream(t, m, nil)

	want := []ai.Content{
		{Type: ai.TypeToolCall, ID: "call_aaaa1111", Name: "read", Arguments: json.RawMessage(`{"path": "go.mod"}`)},
		{Type: ai.TypeToolCall, ID: "call_bbbb2222", Name: "bash", Arguments: json.RawMessage(`{"command": "go test ./..."}`)},
	}
	if diff := cmp.Diff(want, msg.Content); diff != "" {
		t.Errorf("content (-want +got):\n%s", diff)
	}
	if msg.StopReason != ai.StopToolUse || msg.Usage.Output != 48 {
		t.Errorf("stop %s usage %+v", msg.StopReason, msg.Usage)
	}
	var deltas []string
	for _, e := range evs {
		if e.Type == ai.EventToolCallDelta {
			deltas = append(deltas, e.Delta)
		}
	}
	if diff := cmp.Diff([]string{`{"pa`, `{"command": `, `th": "go.mod"}`, `"go test ./..."}`}, deltas); diff != "" {
		t.Errorf("fragments in arrival order (-want +got):\n%s", diff)
	}
}

func TestStreamReasoningContentAndReplay(t *testing.T) {
	info := ai.Info{ID: "gpt-oss-20b", Provider: "llamacpp", API: API, Reasoning: true}
	srv, m, _ := fixture(t, info,
		providertest.SSE(providertest.File(t, "testdata/reasoning.sse")),
		providertest.SSE(providertest.File(t, "testdata/text.sse")))
	_, msg := stream(t, m, nil)

	want := []ai.Content{
		{Type: ai.TypeThinking, Thinking: "The user wants a greeting.", ThinkingSignature: "reasoning_content"},
		{Type: ai.TypeText, Text: "Hi there"},
		{Type: ai.TypeToolCall, ID: "fc_91", Name: "ls", Arguments: json.RawMessage(`{"path":"."}`)},
	}
	if diff := cmp.Diff(want, msg.Content); diff != "" {
		t.Errorf("content (-want +got):\n%s", diff)
	}
	if msg.StopReason != ai.StopToolUse || msg.Usage.Input != 80 || msg.Usage.Output != 31 {
		t.Errorf("stop %s usage %+v", msg.StopReason, msg.Usage)
	}

	// The next request sends the reasoning back in the field it came in.
	next := &ai.Request{Thinking: ai.ThinkingHigh, Messages: []ai.Message{ai.UserText("hi", 1), msg,
		{Role: ai.RoleToolResult, ToolCallID: "fc_91", ToolName: "ls", Content: []ai.Content{ai.TextContent("go.mod")}}}}
	stream(t, m, next)
	providertest.AssertJSON(t, `{"model":"gpt-oss-20b","stream":true,"stream_options":{"include_usage":true},"reasoning_effort":"high","messages":[
		{"role":"user","content":"hi"},
		{"role":"assistant","content":"Hi there","reasoning_content":"The user wants a greeting.",
		 "tool_calls":[{"id":"fc_91","type":"function","function":{"name":"ls","arguments":"{\"path\":\".\"}"}}]},
		{"role":"tool","content":"go.mod","tool_call_id":"fc_91"}]}`, srv.Requests()[1].Body)
}

// A server that ends with [DONE] but never sends a finish_reason still
// completed its answer.
func TestStreamDoneWithoutFinishReason(t *testing.T) {
	s := "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"}}]}\n\ndata: [DONE]\n\n"
	_, m, _ := fixture(t, gpt41, providertest.SSE(s))
	_, msg := stream(t, m, nil)
	if msg.Text() != "ok" || msg.StopReason != ai.StopStop {
		t.Fatalf("message %q %s", msg.Text(), msg.StopReason)
	}
}
