package anthropic

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

// benchStream is a long answer as the Messages API streams it: thinking, a
// text and a tool call in small deltas, with pings, then message_delta and
// message_stop.
func benchStream(deltas int) []byte {
	rng := rand.New(rand.NewPCG(3, 4))
	var s strings.Builder
	ev := func(name, data string) { fmt.Fprintf(&s, "event: %s\ndata: %s\n\n", name, data) }
	piece := func() string { return string(pijson.AppendString(nil, providertest.BenchText(rng, 24))) }
	ev("message_start", `{"type":"message_start","message":{"id":"msg_bench","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1000,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1,"service_tier":"standard"}}}`)
	ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`)
	for i := range deltas / 4 {
		ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":`+piece()+`}}`)
		if i%100 == 0 {
			ev("ping", `{"type": "ping"}`)
		}
	}
	ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxPU0nZ"}}`)
	ev("content_block_stop", `{"type":"content_block_stop","index":0}`)
	ev("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`)
	for range deltas / 2 {
		ev("content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":`+piece()+`}}`)
	}
	ev("content_block_stop", `{"type":"content_block_stop","index":1}`)
	ev("content_block_start", `{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_bench","name":"write","input":{}}}`)
	ev("content_block_delta", `{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"content\":\""}}`)
	for range deltas / 4 {
		ev("content_block_delta", `{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"line of code\\n"}}`)
	}
	ev("content_block_delta", `{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"\"}"}}`)
	ev("content_block_stop", `{"type":"content_block_stop","index":2}`)
	ev("message_delta", fmt.Sprintf(`{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":%d}}`, deltas))
	ev("message_stop", `{"type":"message_stop"}`)
	return []byte(s.String())
}

// BenchmarkStreamParse reports the bytes per second of event stream gopi
// turns into a message.
func BenchmarkStreamParse(b *testing.B) {
	data := benchStream(20000)
	m := New(Config{Info: sonnet, APIKey: testKey, HTTPClient: &http.Client{Transport: providertest.MemTransport{Stream: data}}})
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
