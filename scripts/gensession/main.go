// Command gensession writes a pi version 3 session of N entries (a
// linear conversation of user prompts, assistant tool calls, tool
// results and answers, about 2 KB each) for scripts/bench.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"strings"
	"time"
)

func main() {
	n := flag.Int("n", 10000, "entries")
	cwd := flag.String("cwd", "/tmp", "the session header's cwd")
	out := flag.String("o", "big.jsonl", "output file")
	flag.Parse()
	f, err := os.Create(*out)
	if err != nil {
		log.Fatal(err)
	}
	w := bufio.NewWriter(f)
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	cwdJSON, _ := json.Marshal(*cwd)
	fmt.Fprintf(w, `{"type":"session","version":3,"id":"be4c4000-0000-4000-8000-000000000000","timestamp":"2026-01-01T00:00:00.000Z","cwd":%s}`+"\n", cwdJSON)
	filler := strings.Repeat("lorem ipsum dolor sit amet ", 78) // ~2 KB
	parent := any(nil)
	for i := range *n {
		id := fmt.Sprintf("%08x", i+1)
		ts := start.Add(time.Duration(i) * time.Second)
		line(w, map[string]any{"type": "message", "id": id, "parentId": parent,
			"timestamp": ts.Format("2006-01-02T15:04:05.000Z"), "message": message(i, ts.UnixMilli(), filler)})
		parent = id
	}
	if err := w.Flush(); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
}

func message(i int, ms int64, filler string) map[string]any {
	usage := map[string]any{"input": 1000, "output": 50, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 1050,
		"cost": map[string]any{"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}
	call := fmt.Sprintf("call_%d", i-1)
	switch i % 4 {
	case 0:
		return map[string]any{"role": "user", "content": []any{text(fmt.Sprintf("step %d: %s", i, filler))}, "timestamp": ms}
	case 1:
		return map[string]any{"role": "assistant", "content": []any{text(filler[:200]),
			map[string]any{"type": "toolCall", "id": fmt.Sprintf("call_%d", i), "name": "bash", "arguments": map[string]any{"command": "ls -la"}}},
			"api": "anthropic-messages", "provider": "anthropic", "model": "claude-opus-4-6", "usage": usage, "stopReason": "toolUse", "timestamp": ms}
	case 2:
		return map[string]any{"role": "toolResult", "toolCallId": call, "toolName": "bash", "content": []any{text(filler)}, "isError": false, "timestamp": ms}
	}
	return map[string]any{"role": "assistant", "content": []any{text(filler)}, "api": "anthropic-messages", "provider": "anthropic",
		"model": "claude-opus-4-6", "usage": usage, "stopReason": "stop", "timestamp": ms}
}

func text(s string) map[string]any { return map[string]any{"type": "text", "text": s} }

func line(w *bufio.Writer, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		log.Fatal(err)
	}
	w.Write(b)
	w.WriteByte('\n')
}
