package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"gopi/internal/pijson"
	"gopi/pkg/ai"
	"gopi/pkg/ai/provider/providertest"
)

func BenchmarkBuildBody(b *testing.B) {
	info := ai.Info{ID: "gpt-5", Provider: "openai", API: API, Reasoning: true}
	req := providertest.BenchRequest(info, 10000, "call_")
	q := DefaultQuirks("")
	body, err := buildBody(info, q, req)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := buildBody(info, q, req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuildBodyAfterGC is BenchmarkBuildBody as a session sees it:
// one request per turn with collections in between, so nothing pooled
// from the previous request is left.
func BenchmarkBuildBodyAfterGC(b *testing.B) {
	info := ai.Info{ID: "gpt-5", Provider: "openai", API: API, Reasoning: true}
	req := providertest.BenchRequest(info, 10000, "call_")
	q := DefaultQuirks("")
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		runtime.GC()
		runtime.GC()
		b.StartTimer()
		if _, err := buildBody(info, q, req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodeBody writes the body of a converted request, by the
// writer and by encoding/json for comparison.
func BenchmarkEncodeBody(b *testing.B) {
	info := ai.Info{ID: "gpt-5", Provider: "openai", API: API, Reasoning: true}
	r := newRequest(info, DefaultQuirks(""), providertest.BenchRequest(info, 10000, "call_"))
	b.Run("writer", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := r.encode(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding_json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(r); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// benchStream is a long answer as OpenAI streams it: reasoning, a text and
// a tool call, in small deltas with every chunk's usual envelope, then the
// finish chunk, the usage chunk and [DONE].
func benchStream(deltas int) []byte {
	rng := rand.New(rand.NewPCG(3, 4))
	var s strings.Builder
	chunk := func(delta, finish string) {
		fmt.Fprintf(&s, `data: {"id":"chatcmpl-Bench","object":"chat.completion.chunk","created":1752000000,"model":"gpt-5","service_tier":"default","system_fingerprint":"fp_b3f1157249","choices":[{"index":0,"delta":%s,"logprobs":null,"finish_reason":%s}],"usage":null,"obfuscation":"abc"}`+"\n\n", delta, finish)
	}
	piece := func() string { return string(pijson.AppendString(nil, providertest.BenchText(rng, 24))) }
	chunk(`{"role":"assistant","content":"","refusal":null}`, "null")
	for range deltas / 4 {
		chunk(`{"reasoning_content":`+piece()+`}`, "null")
	}
	for range deltas / 2 {
		chunk(`{"content":`+piece()+`}`, "null")
	}
	chunk(`{"tool_calls":[{"index":0,"id":"call_bench","type":"function","function":{"name":"write","arguments":""}}]}`, "null")
	chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"content\":\""}}]}`, "null")
	for range deltas / 4 {
		chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"line of code\\n"}}]}`, "null")
	}
	chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"\"}"}}]}`, "null")
	chunk(`{}`, `"tool_calls"`)
	fmt.Fprintf(&s, `data: {"id":"chatcmpl-Bench","object":"chat.completion.chunk","created":1752000000,"model":"gpt-5","choices":[],"usage":{"prompt_tokens":1000,"completion_tokens":%d,"total_tokens":%d,"prompt_tokens_details":{"cached_tokens":0},"completion_tokens_details":{"reasoning_tokens":0}}}`+"\n\ndata: [DONE]\n\n", deltas, deltas+1000)
	return []byte(s.String())
}

// BenchmarkStreamParse reports the bytes per second of event stream gopi
// turns into a message.
func BenchmarkStreamParse(b *testing.B) {
	data := benchStream(20000)
	info := ai.Info{ID: "gpt-5", Provider: "openai", API: API, Reasoning: true}
	m := New(Config{Info: info, APIKey: testKey, HTTPClient: &http.Client{Transport: providertest.MemTransport{Stream: data}}})
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
