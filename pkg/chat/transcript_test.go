package chat

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"testing"
	"time"

	"gopi/pkg/ai"
	"gopi/pkg/ai/faux"
	"gopi/pkg/tools"
)

// probe is a tool that reads the path it is given: "missing.txt" fails.
type probe struct{}

func (probe) Specs() []ai.ToolSpec {
	return []ai.ToolSpec{{Name: "probe", Description: "reads a path"}}
}

func (probe) Execute(_ context.Context, call ai.Content, _ func(tools.Result)) tools.Result {
	var args struct{ Path string }
	_ = json.Unmarshal(call.Arguments, &args)
	if args.Path == "missing.txt" {
		return tools.ErrorResult("no such file: missing.txt")
	}
	return tools.TextResult("contents of " + args.Path + "\nmore")
}

// tickingClock advances step per call, from a fixed date.
func tickingClock(step time.Duration) func() time.Time {
	var mu sync.Mutex
	t := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		t = t.Add(step)
		return t
	}
}

func usage(in, cacheRead, cacheWrite, out int64) *ai.Usage {
	return &ai.Usage{Input: in, CacheRead: cacheRead, CacheWrite: cacheWrite, Output: out}
}

// The chat's whole output for a run and its commands, line for line: the
// banner with the sandbox, the answer wrapped to the default 80 columns,
// one line per tool call (elapsed time, ok or error, the start of its
// output), the status line (tokens in counting the cache, tokens out, cost,
// context fill against the window), /session and /new.
func TestChatTranscript(t *testing.T) {
	long := "The first file reads as expected and the second one is missing, so here is a summary that is long enough to wrap."
	r := startRigWith(t, rigSetup{tools: probe{}}, func(o *Options, _ *io.Writer) {
		o.Width = nil // 80 columns
		o.Sandbox = "workspace-write"
		o.Now = tickingClock(1500 * time.Millisecond)
	},
		faux.Response{Text: "Let me look.", ToolCalls: []faux.ToolCall{{ID: "c1", Name: "probe", Arguments: []byte(`{"path":"a.txt"}`)}},
			Usage: usage(1200, 3400, 100, 56)},
		faux.Response{ToolCalls: []faux.ToolCall{{ID: "c2", Name: "probe", Arguments: []byte(`{"path":"missing.txt"}`)}},
			Usage: usage(300, 4700, 0, 20)},
		faux.Response{Text: long, Usage: usage(500, 5000, 200, 1500)})
	r.send("read the files")
	r.expect("ctx 7.2k/200k\n")
	first := r.store.Header().ID
	entries := r.store.Entries()
	leaf := entries[len(entries)-1].ID
	r.send("/session")
	r.expect("ctx 7.2k/200k\n")
	r.send("/new")
	r.expect("new session ")
	r.expect("\n")
	second := r.store.Header().ID
	r.quit()

	want := "gopi chat · faux/faux · sandbox workspace-write · /help for commands · Ctrl-D quits\n" +
		"Let me look.\n" +
		"✓ probe: a.txt 1.5s ok — contents of a.txt …\n" +
		"✗ probe: missing.txt 1.5s error — no such file: missing.txt\n" +
		"The first file reads as expected and the second one is missing, so here is a\n" +
		"summary that is long enough to wrap.\n" +
		"↑15.4k ↓1.6k · $0.0000 · ctx 7.2k/200k\n" +
		"session " + first + "\n" +
		"file    /sessions/s.jsonl\n" +
		"leaf    " + leaf + "\n" +
		"model   faux/faux · thinking off\n" +
		"tokens  ↑15.4k ↓1.6k · cost $0.0000 · ctx 7.2k/200k\n" +
		"new session " + second + "\n"
	if got := r.out.String(); got != want {
		t.Fatalf("transcript:\n%s\nwant:\n%s", got, want)
	}
}

var errNoTemplate = errors.New("/broken: no such template")
