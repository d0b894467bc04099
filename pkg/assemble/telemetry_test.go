package assemble_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"gopi/pkg/agent"
	"gopi/pkg/ai"
	"gopi/pkg/assemble"
	"gopi/pkg/assemble/assembletest"
	"gopi/pkg/loop"
)

// A forced exit's Abandon sends the trace of the prompt still running,
// ended with the exit code it is given, its open request abandoned, and
// the prompt's own end afterwards sends nothing more.
func TestAbandonSendsThePromptStillRunning(t *testing.T) {
	var mu sync.Mutex
	var bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(b))
		mu.Unlock()
	}))
	defer srv.Close()
	s := assembletest.Settings(t, `{"responses": [{"text": "a slow answer", "chunkSize": 1, "delayMs": 50}]}`)
	s.Telemetry.Prompts = true
	a, err := assemble.New(s, assemble.Env{Now: time.Now, Stderr: &bytes.Buffer{},
		Environ: []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + srv.URL, "OTEL_EXPORTER_OTLP_PROTOCOL=http/json", "OTEL_METRICS_EXPORTER=none"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Open(); err != nil {
		a.Close()
		t.Fatal(err)
	}
	defer a.Close()
	rt := a.Runtime()
	defer rt.Dispose(context.Background())
	streaming := make(chan struct{})
	var once sync.Once
	unsub := rt.Control().Subscribe(func(e agent.Event) {
		if e.Type == loop.MessageUpdate {
			once.Do(func() { close(streaming) })
		}
	})
	defer unsub()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { defer close(done); _, _ = rt.Prompt(ctx, ai.UserText("go", 1)) }()
	<-streaming
	a.Abandon(130)
	cancel()
	<-done
	mu.Lock()
	defer mu.Unlock()
	if len(bodies) != 1 {
		t.Fatalf("%d exports, want 1", len(bodies))
	}
	for _, want := range []string{`"key":"gopi.run.exit_code","value":{"intValue":"130"}`, `"name":"invoke_agent gopi"`,
		`"key":"error.type","value":{"stringValue":"abandoned"}`} {
		if !strings.Contains(bodies[0], want) {
			t.Errorf("the export lacks %s: %s", want, bodies[0])
		}
	}
}
