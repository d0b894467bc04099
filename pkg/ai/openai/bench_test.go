package openai

import (
	"encoding/json"
	"runtime"
	"testing"

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
