package assemble_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"gopi/internal/fdcheck"
	"gopi/pkg/ai"
	"gopi/pkg/assemble"
	"gopi/pkg/telemetry"
)

// collector is a loopback OTLP/HTTP receiver: each body posted to
// /v1/traces arrives on the channel.
func collector(t *testing.T) (string, chan string) {
	t.Helper()
	bodies := make(chan string, 16)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if r.URL.Path == "/v1/traces" {
			bodies <- string(b)
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte("{}"))
	}))
	t.Cleanup(ts.Close)
	return ts.URL, bodies
}

// next is the next trace posted, within a bound.
func next(t *testing.T, bodies chan string) string {
	t.Helper()
	select {
	case b := <-bodies:
		return b
	case <-time.After(30 * time.Second):
		t.Fatal("no trace was sent")
		return ""
	}
}

// conversation is the session id as a span's attribute in OTLP JSON.
func conversation(id string) string {
	return `{"key":"gen_ai.conversation.id","value":{"stringValue":"` + id + `"}}`
}

// With Telemetry.Prompts each prompt of each Runtime the Assembly builds
// is a trace naming the session; without it, none is sent.
func TestPromptsAreTraced(t *testing.T) {
	fdcheck.Check(t)
	url, bodies := collector(t)
	var stderr bytes.Buffer
	s := settings(t)
	s.Telemetry = assemble.TelemetrySettings{Prompts: true, Version: "9.9.9",
		Settings: telemetry.Settings{Endpoint: url, Protocol: telemetry.ProtoJSON}}
	a, err := assemble.Build(s, env(&stderr))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	leaf := prompt(t, a, "look around")
	id := a.Store().Header().ID
	body := next(t, bodies)
	for _, want := range []string{conversation(id), `"faux"`, "9.9.9", "chat demo"} {
		if !strings.Contains(body, want) {
			t.Errorf("the trace does not hold %s: %s", want, body)
		}
	}
	if _, err := a.Reopen(assemble.Want{Leaf: leaf}); err != nil {
		t.Fatal(err)
	}
	prompt(t, a, "again")
	if body := next(t, bodies); !strings.Contains(body, conversation(id)) {
		t.Errorf("the reopened Runtime's prompt: %s", body)
	}
	dispose(t, a)

	s.Telemetry.Prompts = false
	b, err := assemble.Build(s, env(&stderr))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	prompt(t, b, "untraced")
	dispose(t, b)
	select {
	case body := <-bodies:
		t.Errorf("a trace without Prompts: %s", body)
	default:
	}
}

// TraceRun traces one run of the last Runtime, its session file and
// leaf filled in when it ends.
func TestTraceRun(t *testing.T) {
	fdcheck.Check(t)
	url, bodies := collector(t)
	var stderr bytes.Buffer
	s := settings(t)
	e := env(&stderr)
	e.Environ = append(e.Environ, "OTEL_EXPORTER_OTLP_ENDPOINT="+url, "OTEL_EXPORTER_OTLP_PROTOCOL=http/json")
	a, err := assemble.Build(s, e)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	msg := ai.UserText("look around", time.Now().UnixMilli())
	end := a.TraceRun([]ai.Message{msg}, time.Now())
	leaf := prompt(t, a, "look around")
	end(telemetry.End{Steps: 1})
	body := next(t, bodies)
	for _, want := range []string{conversation(a.Store().Header().ID), a.File(), leaf, `"faux"`, "chat demo"} {
		if !strings.Contains(body, want) {
			t.Errorf("the trace does not hold %s: %s", want, body)
		}
	}
	dispose(t, a)
}

// A telemetry setting that cannot be used is said once per Assembly, and
// the run goes on untraced.
func TestUnusableTelemetrySaidOnce(t *testing.T) {
	fdcheck.Check(t)
	var stderr bytes.Buffer
	s := settings(t)
	s.Telemetry = assemble.TelemetrySettings{Prompts: true, Settings: telemetry.Settings{Endpoint: "http://127.0.0.1:1", Protocol: "grpc"}}
	a, err := assemble.Build(s, env(&stderr))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	leaf := prompt(t, a, "look around")
	if _, err := a.Reopen(assemble.Want{Leaf: leaf}); err != nil {
		t.Fatal(err)
	}
	end := a.TraceRun(nil, time.Now())
	end(telemetry.End{})
	dispose(t, a)
	if n := strings.Count(stderr.String(), "gopi: telemetry off: "); n != 1 || !strings.Contains(stderr.String(), `"protocol"`) {
		t.Fatalf("said %d times:\n%s", n, stderr.String())
	}
}
