package session

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"gopi/pkg/ai"
)

// writeBenchSession writes a 10,000-entry session of about 20 MB: turns of
// a user prompt, a tool call, a 6.5 KB tool result and an answer.
func writeBenchSession(tb testing.TB, path string) int64 {
	tb.Helper()
	s, err := Create(path, "/bench", Options{NoSync: true})
	if err != nil {
		tb.Fatal(err)
	}
	defer s.Close()
	line := "\tfmt.Println(\"result\", x, <y>) // a line of \"tool\" output\n"
	output := strings.Repeat(line, 6500/len(line))
	prose := strings.Repeat("The change keeps the old behaviour and adds a test. ", 12)
	parent := ""
	add := func(m ai.Message) {
		e, err := s.Append(context.Background(), MessageEntry(parent, m))
		if err != nil {
			tb.Fatal(err)
		}
		parent = e.ID
	}
	for i := range 2500 {
		add(ai.UserText(fmt.Sprintf("step %d: %s", i, prose[:300]), 1))
		add(ai.Message{Role: ai.RoleAssistant, Content: []ai.Content{{Type: ai.TypeThinking, Thinking: prose[:200]},
			ai.ToolCallContent(fmt.Sprint("call_", i), "read", []byte(`{"path":"pkg/a.go"}`))},
			API: "anthropic-messages", Provider: "anthropic", Model: "claude-sonnet-4-5", StopReason: ai.StopToolUse,
			Usage: ai.Usage{Input: 1000, Output: 50, TotalTokens: 1050}})
		add(ai.Message{Role: ai.RoleToolResult, ToolCallID: fmt.Sprint("call_", i), ToolName: "read", Content: []ai.Content{ai.TextContent(output)}})
		add(ai.Message{Role: ai.RoleAssistant, Content: []ai.Content{ai.TextContent(prose)}, StopReason: ai.StopStop})
	}
	st, err := os.Stat(path)
	if err != nil {
		tb.Fatal(err)
	}
	return st.Size()
}

var benchBudget = Budget{ContextWindow: 200_000, ReserveOutput: DefaultReserveTokens, SafetyMargin: 1000}

func openAndBuild(tb testing.TB, path string) (*File, Context) {
	f, err := ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	leaf, _ := Newest(f.Entries)
	p, _, err := PathTo(f.Entries, leaf.ID)
	if err != nil {
		tb.Fatal(err)
	}
	return f, BuildContext(p, benchBudget)
}

// Open, read and build the context of the newest leaf of a 20 MB session.
func BenchmarkOpenBuildContext(b *testing.B) {
	path := filepath.Join(b.TempDir(), "big.jsonl")
	size := writeBenchSession(b, path)
	live := liveHeap(b, path)
	b.ReportAllocs()
	b.ResetTimer()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for b.Loop() {
		openAndBuild(b, path)
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(size)/1e6, "file-MB")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/float64(size), "alloc/filesize")
	b.ReportMetric(live/float64(size), "live/filesize")
}

// liveHeap measures the heap kept by an opened session and its context.
func liveHeap(tb testing.TB, path string) float64 {
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	f, c := openAndBuild(tb, path)
	runtime.GC()
	runtime.ReadMemStats(&m1)
	runtime.KeepAlive(f)
	runtime.KeepAlive(c)
	return float64(m1.HeapAlloc) - float64(m0.HeapAlloc)
}

func benchAppend(b *testing.B, noSync bool) {
	s, err := Create(filepath.Join(b.TempDir(), "s.jsonl"), "/bench", Options{NoSync: noSync})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	m := ai.UserText(strings.Repeat("x", 2000), 1)
	parent := ""
	b.ReportAllocs()
	for b.Loop() {
		e, err := s.Append(context.Background(), MessageEntry(parent, m))
		if err != nil {
			b.Fatal(err)
		}
		parent = e.ID
	}
}

// One 2 KB append, fsynced.
func BenchmarkAppendFsync(b *testing.B) { benchAppend(b, false) }

// One 2 KB append without fsync.
func BenchmarkAppendNoSync(b *testing.B) { benchAppend(b, true) }
