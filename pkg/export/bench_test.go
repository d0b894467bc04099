package export_test

import (
	"io"
	"os"
	"testing"

	"gopi/pkg/export"
	"gopi/pkg/session"
)

// BenchmarkRender exports the session in $GOPI_BENCH_SESSION (make one
// with go run ./scripts/gensession -n 10000 -o /tmp/big.jsonl).
func BenchmarkRender(b *testing.B) {
	path := os.Getenv("GOPI_BENCH_SESSION")
	if path == "" {
		b.Skip("GOPI_BENCH_SESSION names no session file")
	}
	f, err := session.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := export.Render(io.Discard, f, export.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
