// Package providertest is the test kit of the HTTP model adapters: an
// httptest server that answers with scripted responses (recorded streams,
// error statuses, connections cut mid-stream, stalls) and records every
// request it received, plus a recording Sleep. A test fails when a
// scripted response is never requested, or when more requests arrive
// than were scripted.
package providertest

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"gopi/pkg/ai"
)

// Request is what the server received.
type Request struct {
	Method string
	Path   string
	Header http.Header
	Body   []byte
}

// Server replays scripted responses, one per request, in order.
type Server struct {
	*httptest.Server
	t        testing.TB
	mu       sync.Mutex
	handlers []http.HandlerFunc
	requests []Request
}

// New starts a server answering the i-th request with handlers[i].
func New(t testing.TB, handlers ...http.HandlerFunc) *Server {
	t.Helper()
	s := &Server{t: t, handlers: handlers}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(func() {
		s.Close()
		if n := len(s.Requests()); n < len(handlers) {
			t.Errorf("providertest: %d scripted responses, only %d requested", len(handlers), n)
		}
	})
	return s
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	n := len(s.requests)
	s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
	s.mu.Unlock()
	if n >= len(s.handlers) {
		s.t.Errorf("providertest: unexpected request %d to %s", n+1, r.URL.Path)
		http.Error(w, "unexpected request", http.StatusTeapot)
		return
	}
	s.handlers[n](w, r)
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// File reads a testdata file or fails the test.
func File(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// SSE answers 200 with the given event-stream bytes, exactly as given.
func SSE(stream string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("request-id", "req_test")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, stream)
	}
}

// Status answers with a status, headers (key, value pairs) and a body.
func Status(code int, body string, headers ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(headers); i += 2 {
			w.Header().Set(headers[i], headers[i+1])
		}
		if w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(code)
		_, _ = io.WriteString(w, body)
	}
}

// Cut starts a chunked 200 event stream, sends prefix and closes the
// connection without ending the body, as a dropped connection does.
func Cut(prefix string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		conn, buf, err := http.NewResponseController(w).Hijack()
		if err != nil {
			panic(err)
		}
		defer conn.Close()
		writeChunkedHead(buf.Writer, prefix)
	}
}

func writeChunkedHead(w *bufio.Writer, prefix string) {
	fmt.Fprint(w, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
	if prefix != "" {
		fmt.Fprintf(w, "%x\r\n%s\r\n", len(prefix), prefix)
	}
	_ = w.Flush()
}

// Stall sends prefix and then nothing until the client goes away (or ten
// seconds pass, so a broken client cannot hang the test server).
func Stall(prefix string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, prefix)
		_ = http.NewResponseController(w).Flush()
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	}
}

// Sleeper records the delays it is asked to wait and returns at once
// (or with the context's error when it has ended).
type Sleeper struct {
	mu     sync.Mutex
	Delays []time.Duration
}

// Sleep is a Config.Sleep.
func (s *Sleeper) Sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.Delays = append(s.Delays, d)
	s.mu.Unlock()
	return ctx.Err()
}

// Collect drains a stream into its events and final message.
func Collect(t testing.TB, seq func(func(ai.Event) bool)) ([]ai.Event, ai.Message) {
	t.Helper()
	var evs []ai.Event
	var final *ai.Message
	terminals := 0
	for e := range seq {
		evs = append(evs, e)
		if e.Terminal() {
			terminals++
			final = e.Message
		}
	}
	if terminals != 1 || !evs[len(evs)-1].Terminal() {
		t.Fatalf("stream has %d terminal events, last %q; want exactly one, last", terminals, evs[len(evs)-1].Type)
	}
	return evs, *final
}

// Types lists the event types, for comparing grammars.
func Types(evs []ai.Event) []ai.EventType {
	out := make([]ai.EventType, len(evs))
	for i, e := range evs {
		out[i] = e.Type
	}
	return out
}

// FixedNow is a clock for deterministic timestamps.
func FixedNow() time.Time { return time.UnixMilli(1_700_000_000_000) }
