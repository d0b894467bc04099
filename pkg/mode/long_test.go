package mode

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/ai/faux"
	gruntime "gopi/pkg/runtime"
	"gopi/pkg/session"
	"gopi/pkg/tools"
	"gopi/pkg/tools/toolstest"
)

// A long answer of n deltas: five-byte words of text or of thinking, or
// the arguments of one write call in 64-byte deltas (6.4 MB at 100,000).
type longKind string

const (
	longText     longKind = "text"
	longThinking longKind = "thinking"
	longToolArgs longKind = "toolArgs"
)

const longWord = "word "

func longResponses(kind longKind, n int) []faux.Response {
	switch kind {
	case longThinking:
		return []faux.Response{{Thinking: strings.Repeat(longWord, n), Text: "done", ChunkSize: len(longWord)}}
	case longToolArgs:
		content := strings.Repeat("x", 64*n-len(`{"path":"big.txt","content":""}`))
		args, _ := json.Marshal(map[string]string{"path": "big.txt", "content": content})
		return []faux.Response{{ToolCalls: []faux.ToolCall{{ID: "w1", Name: "write", Arguments: args}}, ChunkSize: 64}, faux.Text("done")}
	}
	return []faux.Response{{Text: strings.Repeat(longWord, n), ChunkSize: len(longWord)}}
}

// runLong runs one prompt in mode m whose answer is long and writes the
// output to out.
func runLong(tb testing.TB, m Mode, kind longKind, n int, out io.Writer) Outcome {
	write := toolstest.Func{Name: "write", Fn: func(context.Context, tools.Call) (tools.Result, error) {
		return tools.TextResult("written"), nil
	}}
	store := session.NewMemoryStore("/work/proj", session.Options{})
	rt, err := gruntime.New(gruntime.Config{Model: faux.Info, Compaction: gruntime.Compaction{Disabled: true}},
		gruntime.Deps{Model: faux.New(longResponses(kind, n)...), Session: store, Tools: toolstest.Registry(tb, write)})
	if err != nil {
		tb.Fatal(err)
	}
	o, err := Run(context.Background(), rt, []ai.Message{ai.UserText("go", 1)}, IO{Out: out, Err: io.Discard},
		Options{Mode: m, Header: Header{Header: store.Header()}})
	if err != nil || o.Err != nil || o.Class != "" {
		tb.Fatalf("%s: %v %v %s", m, err, o.Err, o.Class)
	}
	return o
}

// BenchmarkLongAnswerModes streams answers of 1,000, 10,000 and 100,000
// deltas through a Runtime and each output mode's encoder: ns/delta and
// B/op ÷ deltas stay flat as the answer grows when the cost is linear.
func BenchmarkLongAnswerModes(b *testing.B) {
	for _, m := range []Mode{Print, JSON, Events} {
		for _, kind := range []longKind{longText, longThinking, longToolArgs} {
			for _, n := range []int{1_000, 10_000, 100_000} {
				b.Run(fmt.Sprintf("%s/%s/deltas=%d", m, kind, n), func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						runLong(b, m, kind, n, io.Discard)
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/delta")
				})
			}
		}
	}
}

func allocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// Regression: a 100,000-token answer took seconds in every mode (the
// Agent's state copied the whole text at every delta). An answer four
// times as long now allocates about four times as much in print, json
// and events mode (quadratic growth would be sixteen times), and the
// output holds the whole answer.
func TestLongAnswerCostsInProportionInEveryMode(t *testing.T) {
	const n = 2_000
	for _, m := range []Mode{Print, JSON, Events} {
		for _, kind := range []longKind{longText, longThinking, longToolArgs} {
			t.Run(string(m)+"/"+string(kind), func(t *testing.T) {
				runLong(t, m, kind, n/4, io.Discard) // warm up what is allocated once
				var shortOut, out bytes.Buffer       // both grow as the output does
				short := allocatedBy(func() { runLong(t, m, kind, n, &shortOut) })
				long := allocatedBy(func() { runLong(t, m, kind, 4*n, &out) })
				ratio := float64(long) / float64(short)
				t.Logf("%d deltas: %d bytes; %d deltas: %d bytes (%.2f times)", n, short, 4*n, long, ratio)
				if ratio > 6 {
					t.Fatalf("%d deltas allocated %d bytes, %d deltas %d bytes: %.1f times as much for 4 times the answer",
						n, short, 4*n, long, ratio)
				}
				checkLongOutput(t, m, kind, 4*n, out.String())
			})
		}
	}
}

// checkLongOutput checks that the output of mode m holds the answer.
func checkLongOutput(t *testing.T, m Mode, kind longKind, n int, out string) {
	t.Helper()
	answer := strings.Repeat(longWord, n)
	if kind != longText {
		answer = "done"
	}
	switch m {
	case Print:
		if out != answer+"\n" {
			t.Fatalf("print wrote %d bytes, want the %d of the answer", len(out), len(answer)+1)
		}
	case JSON:
		var obj struct{ Text string }
		if err := json.Unmarshal([]byte(out), &obj); err != nil || obj.Text != answer {
			t.Fatalf("json result: %v, text of %d bytes, want %d", err, len(obj.Text), len(answer))
		}
	case Events:
		if got := strings.Count(out, `"type":"message_update"`); got < n {
			t.Fatalf("%d message_update lines, want at least %d", got, n)
		}
	}
}
