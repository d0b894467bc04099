package extension

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/ai/faux"
	"gopi/pkg/loop"
	"gopi/pkg/tools"
)

// recorder is an executor that records the calls it runs.
type recorder struct {
	mu    sync.Mutex
	calls []ai.Content
}

func (r *recorder) Specs() []ai.ToolSpec {
	return []ai.ToolSpec{{Name: "bash", Parameters: json.RawMessage(`{"type":"object"}`)}}
}

func (r *recorder) Execute(_ context.Context, c ai.Content, _ func(tools.Result)) tools.Result {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, c)
	return tools.TextResult("ran " + c.Name + " " + string(c.Arguments))
}

func (r *recorder) ran() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, c := range r.calls {
		out = append(out, string(c.Arguments))
	}
	return out
}

func execute(h *Host, next loop.Executor, args string) tools.Result {
	return h.Wrap(next).Execute(context.Background(), ai.ToolCallContent("call-1", "bash", json.RawMessage(args)), nil)
}

func resultText(r tools.Result) string {
	var parts []string
	for _, c := range r.Content {
		parts = append(parts, c.Text)
	}
	return strings.Join(parts, "\n")
}

func TestBeforeHooksOrderAndFirstDenyWins(t *testing.T) {
	t.Parallel()
	h := NewHost(Options{})
	var order []string
	hook := func(name string, d Decision) BeforeHook {
		return func(context.Context, Call) Decision { order = append(order, name); return d }
	}
	h.BeforeTool("a", hook("a", Allow()))
	h.BeforeTool("b", hook("b", Deny("b says no")))
	h.BeforeTool("c", hook("c", Deny("c says no")))
	rec := &recorder{}
	res := execute(h, rec, `{"command":"ls"}`)
	if !res.IsError || !strings.Contains(resultText(res), "b says no") || strings.Contains(resultText(res), "c says") {
		t.Errorf("result %+v, want an error carrying b's reason only", res)
	}
	if got := strings.Join(order, ","); got != "a,b" {
		t.Errorf("hooks ran %s, want a,b (none after the first deny)", got)
	}
	if len(rec.ran()) != 0 {
		t.Errorf("denied call ran: %v", rec.ran())
	}
	if d, ok := res.Details.(Denial); !ok || d.Hook != "b" {
		t.Errorf("details %#v, want a Denial by b", res.Details)
	}
}

func TestReplacedArgsReachLaterHooksAndTheTool(t *testing.T) {
	t.Parallel()
	h := NewHost(Options{})
	var seen []string
	h.BeforeTool("rewrite", func(_ context.Context, c Call) Decision {
		seen = append(seen, string(c.Args))
		return ReplaceArgs(json.RawMessage(`{"command":"ls -la"}`))
	})
	h.BeforeTool("watch", func(_ context.Context, c Call) Decision {
		seen = append(seen, string(c.Args))
		return Allow()
	})
	var afterArgs string
	h.AfterTool("after", func(_ context.Context, c Call, r tools.Result) (tools.Result, bool) {
		afterArgs = string(c.Args)
		return r, false
	})
	rec := &recorder{}
	res := execute(h, rec, `{"command":"ls"}`)
	want := []string{`{"command":"ls"}`, `{"command":"ls -la"}`}
	if strings.Join(seen, " ") != strings.Join(want, " ") {
		t.Errorf("hooks saw %v, want %v", seen, want)
	}
	if got := rec.ran(); len(got) != 1 || got[0] != `{"command":"ls -la"}` || afterArgs != got[0] {
		t.Errorf("tool ran %v, after-hook saw %s; want the replaced arguments", got, afterArgs)
	}
	if res.IsError {
		t.Errorf("result is an error: %s", resultText(res))
	}
}

func TestFailingBeforeHooksDeny(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		hook BeforeHook
		want string
	}{
		{"panic", func(context.Context, Call) Decision { panic("boom") }, "crashed (boom)"},
		{"args not an object", func(context.Context, Call) Decision { return ReplaceArgs(json.RawMessage(`[1]`)) }, "not a JSON object"},
		{"args not JSON", func(context.Context, Call) Decision { return ReplaceArgs(json.RawMessage(`{nope`)) }, "not a JSON object"},
		{"deny without reason", func(context.Context, Call) Decision { return Deny("") }, "no reason given"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var diags []Diagnostic
			h := NewHost(Options{Report: func(d Diagnostic) { diags = append(diags, d) }})
			h.BeforeTool("bad", tt.hook)
			rec := &recorder{}
			res := execute(h, rec, `{}`)
			if !res.IsError || !strings.Contains(resultText(res), tt.want) {
				t.Errorf("result %q, want an error containing %q", resultText(res), tt.want)
			}
			if len(rec.ran()) != 0 {
				t.Error("the call ran")
			}
			if tt.name == "panic" && (len(diags) != 1 || len(h.Diagnostics()) != 1 || !strings.Contains(diags[0].Message, "boom")) {
				t.Errorf("diagnostics %v, want the panic reported once", diags)
			}
		})
	}
}

func TestAfterHooksReplaceAndPanicsAreSkipped(t *testing.T) {
	t.Parallel()
	h := NewHost(Options{})
	h.AfterTool("observe", func(_ context.Context, _ Call, r tools.Result) (tools.Result, bool) {
		r.Content[0].Text = "mutated a copy"
		return r, false
	})
	h.AfterTool("redact", func(_ context.Context, _ Call, r tools.Result) (tools.Result, bool) {
		return tools.Result{Content: []ai.Content{ai.TextContent("[redacted]")}, Details: map[string]int{"n": 1}, IsError: true}, true
	})
	h.AfterTool("crash", func(context.Context, Call, tools.Result) (tools.Result, bool) { panic("after boom") })
	var seen string
	h.AfterTool("last", func(_ context.Context, _ Call, r tools.Result) (tools.Result, bool) {
		seen = resultText(r)
		r.IsError = false
		return r, true
	})
	res := execute(h, &recorder{}, `{}`)
	if seen != "[redacted]" || resultText(res) != "[redacted]" || res.IsError {
		t.Errorf("result %q isError %v, last hook saw %q; want the redacted result with isError cleared", resultText(res), res.IsError, seen)
	}
	if d, ok := res.Details.(map[string]int); !ok || d["n"] != 1 {
		t.Errorf("details %#v, want the replaced details", res.Details)
	}
	diags := h.Diagnostics()
	if len(diags) != 1 || diags[0].Hook != "crash" || !strings.Contains(diags[0].Message, "after boom") {
		t.Errorf("diagnostics %v, want the crash reported", diags)
	}
}

func TestObserversGetCopiesInOrder(t *testing.T) {
	t.Parallel()
	h := NewHost(Options{})
	var got []string
	h.Observe("first", func(id int, e loop.Event) {
		got = append(got, "first:"+string(e.Type))
		e.Message.Content[0].Text = "changed"
	})
	h.Observe("crash", func(int, loop.Event) { panic("observer boom") })
	h.Observe("second", func(id int, e loop.Event) {
		got = append(got, "second:"+e.Message.Content[0].Text)
	})
	msg := ai.Message{Role: ai.RoleUser, Content: []ai.Content{ai.TextContent("hi")}}
	h.Notify(7, loop.Event{Type: loop.MessageStart, Message: &msg})
	if want := "first:message_start second:hi"; strings.Join(got, " ") != want {
		t.Errorf("observers saw %v, want %s", got, want)
	}
	if msg.Content[0].Text != "hi" {
		t.Error("an observer changed the caller's event")
	}
	if d := h.Diagnostics(); len(d) != 1 || d[0].Hook != "crash" {
		t.Errorf("diagnostics %v, want the observer panic", d)
	}
}

// A denied call reaches the model as an error result; the run continues
// and every call keeps its one result.
func TestDeniedCallThroughTheLoop(t *testing.T) {
	t.Parallel()
	h := NewHost(Options{})
	h.BeforeTool("no-rm", func(_ context.Context, c Call) Decision {
		if strings.Contains(string(c.Args), "rm ") {
			return Deny("rm is not allowed here")
		}
		return Allow()
	})
	model := faux.New(faux.Call("bash", `{"command":"rm -rf /"}`), faux.Text("ok, I will not"))
	res := loop.Run(context.Background(), loop.Config{Model: model, Tools: h.Wrap(&recorder{})}, nil,
		[]ai.Message{{Role: ai.RoleUser, Content: []ai.Content{ai.TextContent("clean up")}}})
	if res.Reason != loop.ReasonStop {
		t.Fatalf("run ended %s (%v), want stop", res.Reason, res.Err)
	}
	var results []ai.Message
	for _, m := range res.New() {
		if m.Role == ai.RoleToolResult {
			results = append(results, m)
		}
	}
	if len(results) != 1 || !results[0].IsError || !strings.Contains(results[0].Content[0].Text, "rm is not allowed here") {
		t.Fatalf("tool results %+v, want one error carrying the reason", results)
	}
	reqs := model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("model saw %d requests, want 2 (the run continued)", len(reqs))
	}
}
