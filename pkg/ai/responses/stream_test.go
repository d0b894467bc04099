package responses

import (
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"gopi/pkg/ai"
	"gopi/pkg/ai/provider/providertest"
)

func TestStreamText(t *testing.T) {
	srv, m, _ := fixture(t, codex, providertest.SSE(providertest.File(t, "testdata/text.sse")))
	evs, msg := stream(t, m, nil)

	want := []ai.EventType{ai.EventStart, ai.EventTextStart, ai.EventTextDelta, ai.EventTextDelta, ai.EventTextEnd, ai.EventDone}
	if diff := cmp.Diff(want, providertest.Types(evs)); diff != "" {
		t.Errorf("event types (-want +got):\n%s", diff)
	}
	if msg.Text() != "Hello, world!" || msg.StopReason != ai.StopStop || msg.API != API || msg.Model != "gpt-5-codex" {
		t.Errorf("message = %q %s %s %s", msg.Text(), msg.StopReason, msg.API, msg.Model)
	}
	if raw := string(msg.Extra["rawStopReason"]); raw != `"completed"` {
		t.Errorf("rawStopReason %s, want the response's status", raw)
	}
	if sig := msg.Content[0].TextSignature; sig != `{"v":1,"id":"msg_0a1b2c3d4e5f6071text0001"}` {
		t.Errorf("text signature %q, want the message item's id in pi's form", sig)
	}
	req := srv.Requests()[0]
	if req.Path != "/v1/responses" || req.Header.Get("Authorization") != "Bearer "+testKey || req.Header.Get("Accept") != "text/event-stream" {
		t.Errorf("request %s, authorization %q, accept %q", req.Path, req.Header.Get("Authorization"), req.Header.Get("Accept"))
	}
	providertest.AssertJSON(t, `{"model":"gpt-5-codex","instructions":"You are terse.",
		"input":[{"role":"user","content":[{"type":"input_text","text":"hi"}]}],
		"stream":true,"store":false,"include":["reasoning.encrypted_content"],"reasoning":{"summary":"auto"}}`, req.Body)
}

// Cached tokens are part of input_tokens and priced apart; reasoning
// tokens are part of output_tokens and priced as output.
func TestStreamUsageAndCost(t *testing.T) {
	tests := []struct {
		file                         string
		input, cached, output, total int64
		wantCost                     float64
	}{
		{"testdata/text.sse", 476, 1024, 12, 1512, (476*1.25 + 1024*0.125 + 12*10) / 1e6},
		{"testdata/reasoning.sse", 80, 0, 231, 311, (80*1.25 + 231*10) / 1e6},
	}
	for _, tt := range tests {
		_, m, _ := fixture(t, codex, providertest.SSE(providertest.File(t, tt.file)))
		_, msg := stream(t, m, nil)
		u := msg.Usage
		if u.Input != tt.input || u.CacheRead != tt.cached || u.Output != tt.output || u.TotalTokens != tt.total || u.CacheWrite != 0 {
			t.Errorf("%s: usage = %+v", tt.file, u)
		}
		if math.Abs(u.Cost.Total-tt.wantCost) > 1e-12 || math.Abs(u.Cost.Output-float64(tt.output)*10/1e6) > 1e-12 {
			t.Errorf("%s: cost = %+v, want total %v", tt.file, u.Cost, tt.wantCost)
		}
	}
}

func TestStreamReasoningAndReplay(t *testing.T) {
	srv, m, _ := fixture(t, codex,
		providertest.SSE(providertest.File(t, "testdata/reasoning.sse")),
		providertest.SSE(providertest.File(t, "testdata/text.sse")))
	_, msg := stream(t, m, &ai.Request{Thinking: ai.ThinkingHigh, Messages: []ai.Message{ai.UserText("list the files", 1)}})

	if len(msg.Content) != 2 || msg.StopReason != ai.StopToolUse {
		t.Fatalf("content %+v stop %s", msg.Content, msg.StopReason)
	}
	th := msg.Content[0]
	if th.Type != ai.TypeThinking || th.Thinking != "**Listing files**\n\nThe user wants the files.\n\n**Choosing a tool**\n\nls will do." {
		t.Errorf("thinking = %q", th.Thinking)
	}
	var item map[string]any
	if err := json.Unmarshal([]byte(th.ThinkingSignature), &item); err != nil {
		t.Fatalf("signature is not the serialized item: %v", err)
	}
	if item["type"] != "reasoning" || item["id"] != "rs_1b2c3d4e5f607182reason01" ||
		item["encrypted_content"] != "gAAAAABoq1J8Zm9vYmFyLWVuY3J5cHRlZC1yZWFzb25pbmctb3BhcXVlLWJsb2I9PQ==" {
		t.Errorf("signature item = %v", item)
	}
	call := ai.Content{Type: ai.TypeToolCall, ID: "call_Xy7PqR2sT9uV4wZ1|fc_1b2c3d4e5f607182call0001", Name: "ls", Arguments: json.RawMessage(`{"path":"."}`)}
	if diff := cmp.Diff(call, msg.Content[1]); diff != "" {
		t.Errorf("tool call (-want +got):\n%s", diff)
	}

	// The next request carries the reasoning item back, then the call
	// under both its ids, then the result answering the call_id.
	next := &ai.Request{Thinking: ai.ThinkingHigh, Messages: []ai.Message{ai.UserText("list the files", 1), msg,
		{Role: ai.RoleToolResult, ToolCallID: call.ID, ToolName: "ls", Content: []ai.Content{ai.TextContent("go.mod")}}}}
	stream(t, m, next)
	providertest.AssertJSON(t, `{"model":"gpt-5-codex","input":[
		{"role":"user","content":[{"type":"input_text","text":"list the files"}]},
		{"type":"reasoning","id":"rs_1b2c3d4e5f607182reason01","summary":[
			{"type":"summary_text","text":"**Listing files**\n\nThe user wants the files."},
			{"type":"summary_text","text":"**Choosing a tool**\n\nls will do."}],
		 "encrypted_content":"gAAAAABoq1J8Zm9vYmFyLWVuY3J5cHRlZC1yZWFzb25pbmctb3BhcXVlLWJsb2I9PQ=="},
		{"type":"function_call","id":"fc_1b2c3d4e5f607182call0001","call_id":"call_Xy7PqR2sT9uV4wZ1","name":"ls","arguments":"{\"path\":\".\"}"},
		{"type":"function_call_output","call_id":"call_Xy7PqR2sT9uV4wZ1","output":"go.mod"}],
		"stream":true,"store":false,"include":["reasoning.encrypted_content"],"reasoning":{"effort":"high","summary":"auto"}}`,
		srv.Requests()[1].Body)
}

func TestStreamParallelFunctionCalls(t *testing.T) {
	_, m, _ := fixture(t, codex, providertest.SSE(providertest.File(t, "testdata/tools.sse")))
	evs, msg := stream(t, m, nil)

	want := []ai.Content{
		{Type: ai.TypeText, Text: "Let me check.", TextSignature: `{"v":1,"id":"msg_2c3d4e5f60718293tools001"}`},
		{Type: ai.TypeToolCall, ID: "call_aaaa1111|fc_2c3d4e5f60718293call0001", Name: "read", Arguments: json.RawMessage(`{"path": "go.mod"}`)},
		{Type: ai.TypeToolCall, ID: "call_bbbb2222|fc_2c3d4e5f60718293call0002", Name: "bash", Arguments: json.RawMessage(`{"command": "go test ./..."}`)},
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
	if diff := cmp.Diff([]string{`{"pa`, `th": "go.mod"}`, `{"command": `, `"go test ./..."}`}, deltas); diff != "" {
		t.Errorf("argument fragments (-want +got):\n%s", diff)
	}
}

// Items a server interleaves stay apart, keyed by output_index, and an
// item whose text or arguments come only whole (in its done events) is
// still complete.
func TestStreamInterleavedAndUnstreamedItems(t *testing.T) {
	s := sseEvents(
		`{"type":"response.output_item.added","output_index":0,"item":{"id":"fc_1","type":"function_call","call_id":"call_1","name":"read","arguments":""}}`,
		`{"type":"response.output_item.added","output_index":1,"item":{"id":"fc_2","type":"function_call","call_id":"call_2","name":"ls","arguments":""}}`,
		`{"type":"response.function_call_arguments.delta","output_index":1,"delta":"{\"path\":"}`,
		`{"type":"response.function_call_arguments.delta","output_index":0,"delta":"{\"path\":\"a\"}"}`,
		`{"type":"response.function_call_arguments.delta","output_index":1,"delta":"\"b\"}"}`,
		`{"type":"response.output_item.done","output_index":1,"item":{"id":"fc_2","type":"function_call","call_id":"call_2","name":"ls","arguments":"{\"path\":\"b\"}"}}`,
		`{"type":"response.output_item.done","output_index":0,"item":{"id":"fc_1","type":"function_call","call_id":"call_1","name":"read","arguments":"{\"path\":\"a\"}"}}`,
		`{"type":"response.output_item.added","output_index":2,"item":{"id":"fc_3","type":"function_call","call_id":"call_3","name":"bash","arguments":""}}`,
		`{"type":"response.function_call_arguments.done","output_index":2,"arguments":"{\"command\":\"true\"}"}`,
		`{"type":"response.output_item.done","output_index":2,"item":{"id":"fc_3","type":"function_call","call_id":"call_3","name":"bash","arguments":"{\"command\":\"true\"}"}}`,
		`{"type":"response.output_item.done","output_index":3,"item":{"id":"msg_4","type":"message","role":"assistant","content":[{"type":"output_text","text":"Done."}]}}`,
		`{"type":"response.completed","response":{"status":"completed","usage":{"input_tokens":5,"output_tokens":6,"total_tokens":11}}}`,
	)
	_, m, _ := fixture(t, codex, providertest.SSE(s))
	_, msg := stream(t, m, nil)
	want := []ai.Content{
		{Type: ai.TypeToolCall, ID: "call_1|fc_1", Name: "read", Arguments: json.RawMessage(`{"path":"a"}`)},
		{Type: ai.TypeToolCall, ID: "call_2|fc_2", Name: "ls", Arguments: json.RawMessage(`{"path":"b"}`)},
		{Type: ai.TypeToolCall, ID: "call_3|fc_3", Name: "bash", Arguments: json.RawMessage(`{"command":"true"}`)},
		{Type: ai.TypeText, Text: "Done.", TextSignature: `{"v":1,"id":"msg_4"}`},
	}
	if diff := cmp.Diff(want, msg.Content); diff != "" {
		t.Errorf("content (-want +got):\n%s", diff)
	}
	if msg.StopReason != ai.StopToolUse {
		t.Errorf("stop %s", msg.StopReason)
	}
}

// sseEvents frames JSON events as the API does, each with its event line.
func sseEvents(datas ...string) string {
	var s strings.Builder
	for _, d := range datas {
		var head struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal([]byte(d), &head); err != nil {
			panic(err)
		}
		s.WriteString("event: " + head.Type + "\ndata: " + d + "\n\n")
	}
	return s.String()
}

// FuzzDecodeEvent feeds any event data to the decoder: it never panics,
// and the fast path for delta events reads what encoding/json reads.
func FuzzDecodeEvent(f *testing.F) {
	for _, file := range []string{"testdata/text.sse", "testdata/reasoning.sse", "testdata/tools.sse", "testdata/error_midstream.sse"} {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			if d, ok := strings.CutPrefix(line, "data: "); ok {
				f.Add(d)
			}
		}
	}
	f.Add(`{"type":"response.output_text.delta","output_index":1e3,"delta":"x"}`)
	f.Add(`{"type":"response.output_text.delta","output_index":0,"delta":"\ud800","delta":"y"}`)
	f.Fuzz(func(t *testing.T, data string) {
		if out, delta, typ, ok := deltaEvent([]byte(data)); ok {
			var ev streamEvent
			if err := json.Unmarshal([]byte(data), &ev); err != nil || ev.OutputIndex != out || ev.Delta != delta || ev.Type != typ || !deltaTypes[ev.Type] {
				t.Errorf("fast path read %d %q, encoding/json %d %q %q (%v)", out, delta, ev.OutputIndex, ev.Delta, ev.Type, err)
			}
		}
		b := ai.NewBuilder(codex, 0, func(ai.Event) bool { return true })
		d := newDecoder(b, codex)
		_, _, _ = d.handle([]byte(`{"type":"response.output_item.added","output_index":0,"item":{"id":"m","type":"message"}}`))
		_, _, _ = d.handle([]byte(data))
		_, _, _ = d.handle([]byte(`{"type":"response.completed","response":{"status":"completed"}}`))
	})
}
