package faux

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"gopi/pkg/ai"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func collect(t *testing.T, m *Model, ctx context.Context, req *ai.Request) ([]ai.Event, ai.Message) {
	t.Helper()
	var evs []ai.Event
	for e := range m.Stream(ctx, req) {
		evs = append(evs, e)
	}
	if len(evs) == 0 || !evs[len(evs)-1].Terminal() {
		t.Fatalf("stream did not end with done or error: %v", types(evs))
	}
	return evs, *evs[len(evs)-1].Message
}

func types(evs []ai.Event) []string {
	var out []string
	for _, e := range evs {
		out = append(out, string(e.Type))
	}
	return out
}

func userReq(text string) *ai.Request {
	return &ai.Request{Messages: []ai.Message{ai.UserText(text, 1)}}
}

func TestStreamGrammarForEveryBlockKind(t *testing.T) {
	m := New(Response{Thinking: "hmm", Text: "héllo wörld", ChunkSize: 4,
		ToolCalls: []ToolCall{{Name: "read", Arguments: json.RawMessage(`{"path":"a"}`)}}})
	evs, msg := collect(t, m, t.Context(), userReq("hi"))
	want := "start thinking_start thinking_delta thinking_end text_start text_delta text_delta text_delta text_end toolcall_start toolcall_delta toolcall_delta toolcall_delta toolcall_end done"
	if got := strings.Join(types(evs), " "); got != want {
		t.Fatalf("events:\n got %s\nwant %s", got, want)
	}
	if msg.Text() != "héllo wörld" || msg.StopReason != ai.StopToolUse {
		t.Fatalf("final message: %q %s", msg.Text(), msg.StopReason)
	}
	calls := msg.ToolCalls()
	if len(calls) != 1 || calls[0].ID == "" || string(calls[0].Arguments) != `{"path":"a"}` {
		t.Fatalf("tool call: %+v", calls)
	}
	if msg.Content[0].ThinkingSignature == "" {
		t.Fatal("thinking block has no signature")
	}
}

func TestRecordsRequestsAsDeepCopies(t *testing.T) {
	m := New(Text("a"))
	req := userReq("first")
	collect(t, m, t.Context(), req)
	req.Messages[0].Content[0].Text = "changed"
	got := m.Requests()
	if len(got) != 1 || got[0].Messages[0].Text() != "first" {
		t.Fatalf("recorded request changed with the caller's: %+v", got)
	}
}

func TestEchoesWhenScriptIsExhausted(t *testing.T) {
	m := New()
	_, msg := collect(t, m, t.Context(), userReq("say this"))
	if msg.Text() != "say this" || msg.StopReason != ai.StopStop {
		t.Fatalf("echo: %q %s", msg.Text(), msg.StopReason)
	}
}

func TestScriptedErrorEndsWithClassedError(t *testing.T) {
	m := New(Response{Text: "partial", Error: "boom", ErrorClass: "overloaded"})
	evs, msg := collect(t, m, t.Context(), userReq("x"))
	last := evs[len(evs)-1]
	var pe *ai.ProviderError
	if last.Type != ai.EventError || !errors.As(last.Err, &pe) || pe.Class != ai.ClassOverloaded {
		t.Fatalf("want overloaded error event, got %s %v", last.Type, last.Err)
	}
	if msg.StopReason != ai.StopError || !strings.Contains(msg.ErrorMessage, "boom") || msg.Text() != "partial" {
		t.Fatalf("message: %+v", msg)
	}
}

func TestCancellationEndsAborted(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	m := New(Response{Text: "aaaaaaaaaa", ChunkSize: 1, DelayMs: 5})
	var msg ai.Message
	n := 0
	for e := range m.Stream(ctx, userReq("x")) {
		if e.Type == ai.EventTextDelta {
			if n++; n == 2 {
				cancel()
			}
		}
		if e.Terminal() {
			msg = *e.Message
		}
	}
	if msg.StopReason != ai.StopAborted || msg.Text() != "aa" {
		t.Fatalf("want aborted with the 2 chars received, got %s %q", msg.StopReason, msg.Text())
	}
}

func TestIgnoreCancelPlaysWholeResponse(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	m := New(Response{Text: "all of it", ChunkSize: 2, IgnoreCancel: true})
	_, msg := collect(t, m, ctx, userReq("x"))
	if msg.StopReason != ai.StopStop || msg.Text() != "all of it" {
		t.Fatalf("got %s %q", msg.StopReason, msg.Text())
	}
}

func TestDelayIsPerChunk(t *testing.T) {
	m := New(Response{Text: "abcd", ChunkSize: 1, DelayMs: 10})
	start := time.Now()
	collect(t, m, t.Context(), userReq("x"))
	if d := time.Since(start); d < 40*time.Millisecond {
		t.Fatalf("4 chunks of 10ms took only %v", d)
	}
}

func TestStopReasonOverrideAndUsage(t *testing.T) {
	m := New(Response{Text: "cut", StopReason: "length", Usage: &ai.Usage{Input: 7, Output: 3}})
	_, msg := collect(t, m, t.Context(), userReq("x"))
	if msg.StopReason != ai.StopLength || msg.Usage.Input != 7 || msg.Usage.TotalTokens != 10 {
		t.Fatalf("got %s %+v", msg.StopReason, msg.Usage)
	}
}

func TestParseScript(t *testing.T) {
	cases := []struct {
		name, src string
		want      int
		err       string
	}{
		{"object", `{"responses":[{"text":"a"},{"toolCalls":[{"name":"bash","arguments":{"command":"ls"}}]}]}`, 2, ""},
		{"array", `[{"text":"a"}]`, 1, ""},
		{"unknown field", `{"responses":[{"txt":"a"}]}`, 0, `unknown field "txt"`},
		{"not json", `nope`, 0, "faux script"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rs, err := Parse([]byte(c.src))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("want error containing %q, got %v", c.err, err)
				}
				return
			}
			if err != nil || len(rs) != c.want {
				t.Fatalf("got %d responses, err %v", len(rs), err)
			}
		})
	}
}

func TestLoadNamesTheFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.json")
	if err := os.WriteFile(p, []byte(`{"responses":[{"text":"from file"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	m, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, msg := collect(t, m, t.Context(), userReq("x")); msg.Text() != "from file" {
		t.Fatalf("got %q", msg.Text())
	}
	if _, err := Load(p + ".missing"); err == nil || !strings.Contains(err.Error(), p+".missing") {
		t.Fatalf("missing file error should name it: %v", err)
	}
}

func TestDemoUsesToolResult(t *testing.T) {
	m := Demo()
	_, first := collect(t, m, t.Context(), userReq("hi"))
	if calls := first.ToolCalls(); len(calls) != 1 || calls[0].Name != "bash" {
		t.Fatalf("demo first answer should call bash: %+v", first)
	}
	req := &ai.Request{Messages: []ai.Message{ai.UserText("hi", 1), first,
		{Role: ai.RoleToolResult, ToolCallID: first.ToolCalls()[0].ID, ToolName: "bash", Content: []ai.Content{ai.TextContent("a.txt\nb.txt")}}}}
	_, second := collect(t, m, t.Context(), req)
	if !strings.Contains(second.Text(), "a.txt\nb.txt") {
		t.Fatalf("demo answer should include the listing: %q", second.Text())
	}
}

func TestConsumerStopEarlyIsSafe(t *testing.T) {
	m := New(Response{Text: "abcdef", ChunkSize: 1})
	for e := range m.Stream(t.Context(), userReq("x")) {
		if e.Type == ai.EventTextDelta {
			break
		}
	}
}
