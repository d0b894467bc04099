package telemetry

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"gopi/pkg/agent"
	"gopi/pkg/ai"
	"gopi/pkg/ai/faux"
	"gopi/pkg/runtime"
	"gopi/pkg/session"
)

// BenchmarkRun20Steps is a 20-step faux run (19 tool calls, then an
// answer) without telemetry and with it, sent to a loopback collector.
func BenchmarkRun20Steps(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
	}))
	defer srv.Close()
	for _, on := range []bool{false, true} {
		name := "off"
		if on {
			name = "on"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				script := make([]faux.Response, 0, 20)
				for range 19 {
					script = append(script, faux.Call("echo", `{"n":1}`))
				}
				script = append(script, faux.Text("done"))
				r, err := runtime.New(runtime.Config{Model: faux.Info, MaxSteps: 20},
					runtime.Deps{Model: faux.New(script...), Session: session.NewMemoryStore("/proj", session.Options{}), Tools: echoTools{}})
				if err != nil {
					b.Fatal(err)
				}
				rec := Off
				if on {
					tel := New(Config{Enabled: true, Endpoint: srv.URL + "/v1/traces", Protocol: ProtoProtobuf, ServiceName: "gopi", Sampler: "parentbased_always_on"}, Options{})
					rec = tel.Start(Info{Provider: "faux", Model: "faux"})
				}
				unsub := r.Control().Subscribe(func(e agent.Event) { rec.Event(e.RunID, e.Event) }, agent.Except(agent.RunEnd))
				res, err := r.Prompt(context.Background(), ai.UserText("go", 1))
				if err != nil || res.Steps != 20 {
					b.Fatalf("%v, %d steps", err, res.Steps)
				}
				unsub()
				rec.End(End{Reason: string(res.Reason), Steps: res.Steps, Usage: res.Usage})
				_ = r.Dispose(context.Background())
			}
		})
	}
}
