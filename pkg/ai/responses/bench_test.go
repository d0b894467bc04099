package responses

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"

	"gopi/internal/pijson"
	"gopi/pkg/ai"
	"gopi/pkg/ai/provider/providertest"
)

// benchStream is a long answer as the API streams it: a reasoning summary,
// a text and a function call, in small deltas, then response.completed.
func benchStream(deltas int) []byte {
	rng := rand.New(rand.NewPCG(3, 4))
	var evs []string
	add := func(format string, args ...any) { evs = append(evs, fmt.Sprintf(format, args...)) }
	piece := func() string { return string(jsonString(providertest.BenchText(rng, 24))) }
	add(`{"type":"response.created","sequence_number":0,"response":{"id":"resp_b","object":"response","status":"in_progress","model":"gpt-5-codex","output":[],"usage":null}}`)
	add(`{"type":"response.output_item.added","output_index":0,"item":{"id":"rs_b","type":"reasoning","summary":[]}}`)
	add(`{"type":"response.reasoning_summary_part.added","item_id":"rs_b","output_index":0,"summary_index":0,"part":{"type":"summary_text","text":""}}`)
	for range deltas / 4 {
		add(`{"type":"response.reasoning_summary_text.delta","item_id":"rs_b","output_index":0,"summary_index":0,"delta":%s,"obfuscation":"abc"}`, piece())
	}
	add(`{"type":"response.output_item.done","output_index":0,"item":{"id":"rs_b","type":"reasoning","summary":[],"encrypted_content":"%s"}}`, strings.Repeat("QUJD", 2000))
	add(`{"type":"response.output_item.added","output_index":1,"item":{"id":"msg_b","type":"message","status":"in_progress","content":[],"role":"assistant"}}`)
	for range deltas / 2 {
		add(`{"type":"response.output_text.delta","item_id":"msg_b","output_index":1,"content_index":0,"delta":%s,"logprobs":[],"obfuscation":"abc"}`, piece())
	}
	add(`{"type":"response.output_item.done","output_index":1,"item":{"id":"msg_b","type":"message","status":"completed","content":[],"role":"assistant"}}`)
	add(`{"type":"response.output_item.added","output_index":2,"item":{"id":"fc_b","type":"function_call","status":"in_progress","arguments":"","call_id":"call_b","name":"write"}}`)
	add(`{"type":"response.function_call_arguments.delta","item_id":"fc_b","output_index":2,"delta":"{\"content\":\""}`)
	for range deltas / 4 {
		add(`{"type":"response.function_call_arguments.delta","item_id":"fc_b","output_index":2,"delta":%s}`, jsonString("line of code\\n"))
	}
	add(`{"type":"response.function_call_arguments.delta","item_id":"fc_b","output_index":2,"delta":"\"}"}`)
	add(`{"type":"response.output_item.done","output_index":2,"item":{"id":"fc_b","type":"function_call","status":"completed","arguments":"","call_id":"call_b","name":"write"}}`)
	add(`{"type":"response.completed","response":{"status":"completed","usage":{"input_tokens":1000,"input_tokens_details":{"cached_tokens":0},"output_tokens":%d,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":%d}}}`, deltas, deltas+1000)
	return []byte(sseEvents(evs...))
}

func jsonString(s string) []byte { return pijson.AppendString(nil, s) }

// BenchmarkStreamParse reports the bytes per second of event stream gopi
// turns into a message.
func BenchmarkStreamParse(b *testing.B) {
	data := benchStream(20000)
	m := New(Config{Info: codex, APIKey: testKey, HTTPClient: &http.Client{Transport: providertest.MemTransport{Stream: data}}})
	req := &ai.Request{Messages: []ai.Message{ai.UserText("hi", 1)}}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		msg, err := ai.Collect(m.Stream(context.Background(), req))
		if err != nil || msg.StopReason != ai.StopToolUse || len(msg.Content) != 3 {
			b.Fatalf("stop %s, %d blocks, err %v", msg.StopReason, len(msg.Content), err)
		}
	}
}

func BenchmarkBuildBody(b *testing.B) {
	req := providertest.BenchRequest(codex, 10000, "call_")
	body, err := buildBody(codex, req)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := buildBody(codex, req); err != nil {
			b.Fatal(err)
		}
	}
}
