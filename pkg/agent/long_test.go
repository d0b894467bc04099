package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/ai/faux"
	"gopi/pkg/tools"
	"gopi/pkg/tools/toolstest"
)

// A long answer: n deltas of one five-byte word each, as text, as
// thinking, or as the arguments of one tool call (64 bytes a delta, a
// write of several megabytes at n = 100,000).
const longWord = "word "

type longKind string

const (
	longText     longKind = "text"
	longThinking longKind = "thinking"
	longToolArgs longKind = "toolArgs"
)

// longAgent returns an Agent whose model streams a long answer of n
// deltas of the given kind, and a "write" tool that accepts anything.
func longAgent(tb testing.TB, kind longKind, n int) *Agent {
	var first faux.Response
	switch kind {
	case longText:
		first = faux.Response{Text: strings.Repeat(longWord, n), ChunkSize: len(longWord)}
	case longThinking:
		first = faux.Response{Thinking: strings.Repeat(longWord, n), Text: "done", ChunkSize: len(longWord)}
	case longToolArgs:
		content := strings.Repeat("x", 64*n-len(`{"path":"big.txt","content":""}`))
		args, _ := json.Marshal(map[string]string{"path": "big.txt", "content": content})
		first = faux.Response{ToolCalls: []faux.ToolCall{{ID: "w1", Name: "write", Arguments: args}}, ChunkSize: 64}
	}
	write := toolstest.Func{Name: "write", Fn: func(context.Context, tools.Call) (tools.Result, error) {
		return tools.TextResult("written"), nil
	}}
	return New(Options{Model: faux.New(first, faux.Text("done")), Tools: toolstest.Registry(tb, write)})
}

// streamLong runs one prompt whose answer is long, with one subscriber
// that takes every event (as events mode does), and returns the answer.
func streamLong(tb testing.TB, kind longKind, n int) {
	a := longAgent(tb, kind, n)
	deltas := 0
	a.Subscribe(func(e Event) {
		if e.Stream != nil && e.Stream.Delta != "" {
			deltas++
		}
	})
	res, err := a.PromptText(context.Background(), "go")
	if err != nil || res.Err != nil {
		tb.Fatalf("prompt: %v %v", err, res.Err)
	}
	if deltas < n {
		tb.Fatalf("%d deltas reached the subscriber, want at least %d", deltas, n)
	}
}

// BenchmarkLongAnswer streams an answer of 1,000, 10,000 and 100,000
// deltas through the Agent (faux model, loop, reducer, one subscriber):
// ns/delta and B/delta stay flat as the answer grows when its cost is
// linear.
func BenchmarkLongAnswer(b *testing.B) {
	for _, kind := range []longKind{longText, longThinking, longToolArgs} {
		for _, n := range []int{1_000, 10_000, 100_000} {
			b.Run(fmt.Sprintf("%s/deltas=%d", kind, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					streamLong(b, kind, n)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/delta")
			})
		}
	}
}

// longAllocated returns the bytes the Go heap allocated while f ran.
func longAllocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// Regression: the reducer grew StreamingText by concatenation, copying
// the whole text at every delta, so a 100,000-token answer took seconds
// and allocated gigabytes. An answer four times as long now allocates
// about four times as much (quadratic growth would be sixteen times);
// the same holds for long thinking and for a tool call's arguments.
func TestLongAnswerAllocatesInProportionToItsLength(t *testing.T) {
	const n = 5_000
	for _, kind := range []longKind{longText, longThinking, longToolArgs} {
		t.Run(string(kind), func(t *testing.T) {
			streamLong(t, kind, n/4) // warm up what is allocated once
			short := longAllocated(func() { streamLong(t, kind, n) })
			long := longAllocated(func() { streamLong(t, kind, 4*n) })
			ratio := float64(long) / float64(short)
			t.Logf("%d deltas: %d bytes; %d deltas: %d bytes (%.2f times)", n, short, 4*n, long, ratio)
			if ratio > 6 {
				t.Fatalf("%d deltas allocated %d bytes, %d deltas %d bytes: %.1f times as much for 4 times the answer",
					n, short, 4*n, long, ratio)
			}
		})
	}
}

// The Agent grows StreamingText in place and hands out strings sharing
// its bytes: a text read at one delta must still read the same after the
// later deltas, the next message and the next run, and each message's
// text starts empty.
func TestStreamingTextReadAtEveryDeltaStaysAsRead(t *testing.T) {
	write := toolstest.Func{Name: "write", Fn: func(context.Context, tools.Call) (tools.Result, error) {
		return tools.TextResult("written"), nil
	}}
	m := faux.New(
		faux.Response{Text: "one two three", ChunkSize: 2, ToolCalls: []faux.ToolCall{{ID: "w1", Name: "write", Arguments: json.RawMessage(`{}`)}}},
		faux.Response{Text: "four", ChunkSize: 1},
		faux.Response{Text: "five six", ChunkSize: 3})
	a := New(Options{Model: m, Tools: toolstest.Registry(t, write)})
	var seen, want []string
	acc := ""
	a.Subscribe(func(e Event) {
		switch {
		case e.Type == RunEnd || e.Stream == nil && e.Message != nil && e.Message.Role == ai.RoleAssistant:
			acc = "" // message_start and message_end of an answer
		case e.Stream != nil && e.Stream.Type == ai.EventTextDelta:
			acc += e.Stream.Delta
			seen, want = append(seen, a.State().StreamingText), append(want, acc)
		}
		if s := a.State().StreamingText; s != acc {
			t.Errorf("after %s the state streams %q, want %q", e.Type, s, acc)
		}
	})
	for _, prompt := range []string{"first", "second"} {
		if _, err := a.PromptText(t.Context(), prompt); err != nil {
			t.Fatal(err)
		}
	}
	if len(want) != 7+4+3 {
		t.Fatalf("%d text deltas, want 14: %q", len(want), want)
	}
	if !reflect.DeepEqual(seen, want) {
		t.Fatalf("texts read during the stream changed afterwards:\n got %q\nwant %q", seen, want)
	}
}
