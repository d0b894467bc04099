package telemetry

import (
	"strings"
	"testing"

	"gopi/pkg/agent"
	"gopi/pkg/ai"
	"gopi/pkg/ai/faux"
	"gopi/pkg/runtime"
	"gopi/pkg/session"
)

// chat and rpc: one invoke_agent span per prompt, sent as the prompt
// ends, the session id tying them together.
func TestPromptsAreOneTraceEach(t *testing.T) {
	rcv := newReceiver(t)
	var stderr strings.Builder
	tel := New(Config{Enabled: true, Endpoint: rcv.srv.URL + "/v1/traces", Protocol: ProtoJSON, ServiceName: "gopi",
		Sampler: "parentbased_always_on", CaptureContent: true}, Options{Stderr: &stderr})
	store := session.NewMemoryStore("/proj", session.Options{})
	r, err := runtime.New(runtime.Config{Model: faux.Info}, runtime.Deps{Model: faux.New(faux.Call("echo", `{}`), faux.Text("one"), faux.Text("two")),
		Session: store, Tools: echoTools{}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Dispose(t.Context())
	rec := tel.Prompts(Info{Provider: "faux", Model: "faux", SessionID: store.Header().ID, SessionFile: "/proj/s.jsonl", Leaf: r.Leaf})
	unsub := r.Control().Subscribe(func(e agent.Event) { rec(e.RunID, e.Event) }, agent.Except(agent.RunEnd))
	defer unsub()
	for i, text := range []string{"first prompt", "second prompt"} {
		if _, err := r.Prompt(t.Context(), ai.UserText(text, 1)); err != nil {
			t.Fatal(err)
		}
		reqs := rcv.requests(t)
		if len(reqs) != i+1 {
			t.Fatalf("after prompt %d: %d exports", i+1, len(reqs))
		}
		spans := reqs[i].Spans
		rt := root(t, spans)
		wantAttrs(t, rt, map[string]any{"gen_ai.conversation.id": store.Header().ID, "gopi.run.reason": "stop", "gopi.run.steps": 2 - i,
			"gopi.session.file": "/proj/s.jsonl", "gopi.session.leaf_id": r.Leaf()})
		if in, _ := rt.Attrs["gen_ai.input.messages"].(string); !strings.Contains(in, text) {
			t.Errorf("prompt %d: input messages %q", i+1, in)
		}
		if n := len(named(spans, "chat faux")); n != 2-i {
			t.Errorf("prompt %d: %d chat spans", i+1, n)
		}
		if i == 1 && rt.TraceID == root(t, reqs[0].Spans).TraceID {
			t.Errorf("two prompts share trace %s", rt.TraceID)
		}
	}
	if stderr.Len() > 0 {
		t.Errorf("stderr %q", stderr.String())
	}
}

// A collector that fails costs a chat one bounded wait and one line, not
// one at every prompt.
func TestPromptsStopSendingAfterAFailure(t *testing.T) {
	rcv := newReceiver(t)
	rcv.status = 500
	var stderr strings.Builder
	tel := New(Config{Enabled: true, Endpoint: rcv.srv.URL + "/v1/traces", Protocol: ProtoProtobuf, ServiceName: "gopi",
		Sampler: "parentbased_always_on"}, Options{Stderr: &stderr})
	r, err := runtime.New(runtime.Config{Model: faux.Info}, runtime.Deps{Model: faux.New(faux.Text("one"), faux.Text("two")),
		Session: session.NewMemoryStore("/proj", session.Options{})})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Dispose(t.Context())
	rec := tel.Prompts(Info{Provider: "faux", Model: "faux"})
	unsub := r.Control().Subscribe(func(e agent.Event) { rec(e.RunID, e.Event) }, agent.Except(agent.RunEnd))
	defer unsub()
	for _, text := range []string{"first", "second"} {
		if _, err := r.Prompt(t.Context(), ai.UserText(text, 1)); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(rcv.requests(t)); n != 1 {
		t.Errorf("%d exports to a failing collector, want 1", n)
	}
	if strings.Count(stderr.String(), "\n") != 1 || !strings.Contains(stderr.String(), "answered 500") {
		t.Errorf("stderr %q", stderr.String())
	}
}
