package anthropic

import (
	"encoding/json"
	"runtime"
	"testing"

	"gopi/pkg/ai/provider/providertest"
)

func BenchmarkBuildBody(b *testing.B) {
	req := providertest.BenchRequest(sonnet, 10000, "toolu_")
	cfg := Config{Info: sonnet}
	body, _, err := buildBody(cfg, req)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := buildBody(cfg, req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuildBodyAfterGC is BenchmarkBuildBody as a session sees it:
// one request per turn with collections in between, so nothing pooled
// from the previous request is left.
func BenchmarkBuildBodyAfterGC(b *testing.B) {
	req := providertest.BenchRequest(sonnet, 10000, "toolu_")
	cfg := Config{Info: sonnet}
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		runtime.GC()
		runtime.GC()
		b.StartTimer()
		if _, _, err := buildBody(cfg, req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMeasureBody measures the body of a converted request without
// writing it, as a streamed body's Content-Length is found.
func BenchmarkMeasureBody(b *testing.B) {
	r := newRequest(Config{Info: sonnet}, providertest.BenchRequest(sonnet, 10000, "toolu_"))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.measure(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodeBody writes the body of a converted request, by the
// writer and by encoding/json for comparison.
func BenchmarkEncodeBody(b *testing.B) {
	r := newRequest(Config{Info: sonnet}, providertest.BenchRequest(sonnet, 10000, "toolu_"))
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
