package telemetry

import (
	"context"
	"errors"
	"iter"
	"sync/atomic"
	"testing"

	"gopi/pkg/agent"
	"gopi/pkg/ai"
	"gopi/pkg/ai/faux"
	"gopi/pkg/runtime"
	"gopi/pkg/session"
)

// toolThenBlock calls echo at its first request and, at the next, starts
// an answer and waits for its context's end.
type toolThenBlock struct {
	n       atomic.Int32
	first   ai.Model
	blocked blockingModel
}

func (m *toolThenBlock) Stream(ctx context.Context, req *ai.Request) iter.Seq[ai.Event] {
	if m.n.Add(1) == 1 {
		return m.first.Stream(ctx, req)
	}
	return m.blocked.Stream(ctx, req)
}

// A forced exit (a second Ctrl-C) ends the runs still going and sends
// what they recorded: the root aborted with the exit code it is given
// and the steps and tokens of the answers so far, the finished request
// and tool as they were, the request still open abandoned. The run's own
// end afterwards sends nothing more.
func TestAbandonSendsTheRunsStillGoing(t *testing.T) {
	for _, prompts := range []bool{false, true} {
		rcv := newReceiver(t)
		tel := New(Config{Enabled: true, Endpoint: rcv.srv.URL + "/v1/traces", Protocol: ProtoProtobuf, ServiceName: "gopi",
			Sampler: "parentbased_always_on"}, Options{})
		store := session.NewMemoryStore("/proj", session.Options{})
		m := &toolThenBlock{first: faux.New(faux.Call("echo", `{}`)), blocked: blockingModel{started: make(chan struct{})}}
		r, err := runtime.New(runtime.Config{Model: faux.Info}, runtime.Deps{Model: m, Session: store, Tools: echoTools{}})
		if err != nil {
			t.Fatal(err)
		}
		info := Info{Provider: "faux", Model: "faux", SessionID: store.Header().ID, SessionFile: "/proj/s.jsonl"}
		var event func(int, agent.Event)
		var rec Recorder = Off
		if prompts {
			p := tel.Prompts(info)
			event = func(id int, e agent.Event) { p(id, e.Event) }
		} else {
			rec = tel.Start(info)
			event = func(id int, e agent.Event) { rec.Event(id, e.Event) }
		}
		unsub := r.Control().Subscribe(func(e agent.Event) { event(e.RunID, e) }, agent.Except(agent.RunEnd))
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() { defer close(done); _, _ = r.Prompt(ctx, ai.UserText("go", 1)) }()
		<-m.blocked.started
		tel.Abandon(End{Reason: "aborted", ExitCode: 130, Class: "aborted", Err: errors.New("interrupted again")})
		spans := only(t, rcv.requests(t))
		rt := root(t, spans)
		wantAttrs(t, rt, map[string]any{"gopi.run.exit_code": 130, "gopi.run.reason": "aborted", "gopi.run.steps": 1,
			"error.type": "aborted", "gopi.session.file": "/proj/s.jsonl"})
		if in, _ := rt.Attrs["gen_ai.usage.input_tokens"].(int64); in == 0 || rt.StatusCode != 2 || rt.StatusMsg != "interrupted again" {
			t.Errorf("prompts %v: root input tokens %v, status %d %q", prompts, rt.Attrs["gen_ai.usage.input_tokens"], rt.StatusCode, rt.StatusMsg)
		}
		chats := named(spans, "chat faux")
		if len(chats) != 2 || len(named(spans, "execute_tool echo")) != 1 {
			t.Fatalf("prompts %v: spans %v", prompts, names(spans))
		}
		abandoned := 0
		for _, c := range chats {
			if c.Attrs["error.type"] == "abandoned" && c.StatusCode == 2 {
				abandoned++
			}
		}
		if abandoned != 1 {
			t.Errorf("prompts %v: %d chat spans abandoned, want the open one", prompts, abandoned)
		}
		cancel()
		<-done
		unsub()
		rec.End(End{Reason: "aborted", ExitCode: 130})
		if n := len(rcv.requests(t)); n != 1 {
			t.Errorf("prompts %v: %d exports after the run's own end, want the one", prompts, n)
		}
		r.Dispose(context.Background())
	}
}

// Abandon with nothing recorded sends nothing, and a nil Telemetry
// (telemetry off) does nothing.
func TestAbandonWithNothingToSend(t *testing.T) {
	rcv := newReceiver(t)
	tel := New(Config{Enabled: true, Endpoint: rcv.srv.URL + "/v1/traces", Protocol: ProtoProtobuf, ServiceName: "gopi"}, Options{})
	tel.Abandon(End{ExitCode: 130})
	var off *Telemetry
	off.Abandon(End{ExitCode: 130})
	if n := len(rcv.requests(t)); n != 0 {
		t.Errorf("%d exports, want none", n)
	}
}
