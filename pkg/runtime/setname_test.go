package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/ai/faux"
	"gopi/pkg/session"
	"gopi/pkg/tools"
	"gopi/pkg/tools/toolstest"
)

// SetName appends a session_info entry under the leaf once the
// operations before it ended, and the leaf moves to it; Name reads it
// from the path, and a configured SessionName no longer overrides it.
func TestSetNameIsAnEntryOnThePath(t *testing.T) {
	t.Parallel()
	st := store(t)
	rt, err := New(Config{Model: faux.Info, SessionName: "configured"}, Deps{Model: faux.New(faux.Text("one"), faux.Text("two")), Session: st})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rt.Prompt(context.Background(), ai.UserText("hi", 1)); err != nil {
		t.Fatal(err)
	}
	if rt.Name() != "configured" {
		t.Fatalf("name after the first prompt %q", rt.Name())
	}
	before := rt.Leaf()
	e, err := rt.SetName(context.Background(), "mine")
	if err != nil {
		t.Fatal(err)
	}
	if e.Type != session.TypeSessionInfo || e.Parent() != before || rt.Leaf() != e.ID || rt.Name() != "mine" {
		t.Fatalf("entry %+v, leaf %s (was %s), name %q", e, rt.Leaf(), before, rt.Name())
	}
	if _, err := rt.Prompt(context.Background(), ai.UserText("again", 2)); err != nil {
		t.Fatal(err)
	}
	if rt.Name() != "mine" {
		t.Fatalf("a later prompt renamed the session to %q", rt.Name())
	}
	n := 0
	for _, e := range st.Entries() {
		if e.Type == session.TypeSessionInfo {
			n++
		}
	}
	if n != 2 {
		t.Fatalf("%d session_info entries, want 2 (configured, mine)", n)
	}
	_ = rt.Dispose(context.Background())
	if _, err := rt.SetName(context.Background(), "late"); err != ErrDisposed {
		t.Fatalf("SetName after Dispose: %v", err)
	}
}

// RunTool calls a tool of the Runtime outside a run and records nothing;
// Record appends a message to the session and the transcript, and the
// next request carries it (a bashExecution message as pi's user text).
func TestRunToolAndRecord(t *testing.T) {
	t.Parallel()
	st := store(t)
	model := &captureModel{inner: faux.New(faux.Text("seen"))}
	rt, err := New(Config{Model: faux.Info}, Deps{Model: model, Session: st, Tools: toolstest.Registry(t, echoTool)})
	if err != nil {
		t.Fatal(err)
	}
	var updates int
	res, err := rt.RunTool(context.Background(), ai.ToolCallContent("u1", "echo", json.RawMessage(`{"text":"hi"}`)), func(tools.Result) { updates++ })
	if err != nil || len(res.Content) != 1 || res.Content[0].Text != "hi" || len(st.Entries()) != 0 {
		t.Fatalf("RunTool = %+v, %v; %d entries", res, err, len(st.Entries()))
	}
	if _, err := rt.RunTool(context.Background(), ai.ToolCallContent("u2", "nope", nil), nil); !errors.Is(err, ErrNoTool) {
		t.Fatalf("an unknown tool: %v", err)
	}
	x := map[string]json.RawMessage{"command": json.RawMessage(`"ls"`), "output": json.RawMessage(`"a.txt"`), "exitCode": json.RawMessage(`0`)}
	e, err := rt.Record(context.Background(), ai.Message{Role: "bashExecution", Extra: x})
	if err != nil || rt.Leaf() != e.ID || len(rt.Messages()) != 1 || rt.Control().MessageCount() != 1 {
		t.Fatalf("Record: %v, leaf %s, %d messages", err, rt.Leaf(), len(rt.Messages()))
	}
	if _, err := rt.Prompt(context.Background(), ai.UserText("and now?", 2)); err != nil {
		t.Fatal(err)
	}
	if got := texts(model.last.Messages); len(got) != 2 || got[0] != "Ran `ls`\n```\na.txt\n```" || got[1] != "and now?" {
		t.Fatalf("request messages %q", got)
	}
}

var echoTool = toolstest.Func{Name: "echo", Fn: func(_ context.Context, c tools.Call) (tools.Result, error) {
	var a struct{ Text string }
	_ = json.Unmarshal(c.Args, &a)
	return tools.TextResult(a.Text), nil
}}

// captureModel keeps the last request.
type captureModel struct {
	inner ai.Model
	last  *ai.Request
}

func (m *captureModel) Stream(ctx context.Context, req *ai.Request) iter.Seq[ai.Event] {
	m.last = req
	return m.inner.Stream(ctx, req)
}
