package provider_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"gopi/pkg/ai"
	"gopi/pkg/ai/provider"
)

// The idle-timeout tests run in a synctest bubble: the clock is fake and
// moves only when every goroutine of the test waits, so a stall of two
// minutes takes no time and no outcome depends on the machine's load. The
// server is a real http.Transport talking to a scripted HTTP/1.1 peer over
// net.Pipe, so cancellation reaches the body as it does on a socket.

// beat is one piece of a scripted response: wait, then write.
type beat struct {
	wait time.Duration
	data string
}

// pipeServer answers every request with its beats, then closes the
// connection. wait returns when every connection it served is finished;
// a bubble must not end before its goroutines.
type pipeServer struct {
	beats []beat
	wg    sync.WaitGroup
}

func (s *pipeServer) client() *http.Client {
	tr := &http.Transport{
		DisableKeepAlives: true,
		DialContext: func(context.Context, string, string) (net.Conn, error) {
			client, server := net.Pipe()
			s.wg.Go(func() { serveBeats(server, s.beats) })
			return client, nil
		},
	}
	return &http.Client{Transport: tr}
}

func (s *pipeServer) wait() { s.wg.Wait() }

func serveBeats(conn net.Conn, beats []beat) {
	defer conn.Close()
	req, err := http.ReadRequest(bufio.NewReader(conn))
	if err != nil {
		return
	}
	_ = req.Body.Close()
	for _, b := range beats {
		time.Sleep(b.wait)
		if _, err := io.WriteString(conn, b.data); err != nil {
			return
		}
	}
}

const chunkedHead = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"

func chunk(s string) string { return fmt.Sprintf("%x\r\n%s\r\n", len(s), s) }

const lastChunk = "0\r\n\r\n"

func newRequest(t *testing.T) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, "http://model.test/v1/messages", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// readBody reads the body to its end or first error, one byte per read
// and never more than limit reads, so that a broken reader fails the test
// instead of spinning.
func readBody(t *testing.T, c *provider.Conn, limit int) (string, error) {
	t.Helper()
	var sb strings.Builder
	p := make([]byte, 1)
	for range limit {
		n, err := c.Body.Read(p)
		sb.Write(p[:n])
		if err != nil {
			return sb.String(), c.Err(err)
		}
	}
	t.Fatalf("body not finished after %d reads: %q", limit, sb.String())
	return "", nil
}

func wantIdleTimeout(t *testing.T, err error, idle string) {
	t.Helper()
	var pe *ai.ProviderError
	if !errors.As(err, &pe) {
		t.Fatalf("err = %v, want an idle timeout", err)
	}
	want := "no data from the server for " + idle + " (stream idle timeout)"
	if pe.Class != ai.ClassTimeout || !pe.Retryable || pe.Message != want { // a stall is retried
		t.Errorf("err = %s retryable=%v %q, want timeout %q", pe.Class, pe.Retryable, pe.Message, want)
	}
}

func TestOpenStreamsBody(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := &pipeServer{beats: []beat{{data: chunkedHead}, {data: chunk("data: 1\n\n")}, {data: chunk("data: 2\n\n") + lastChunk}}}
		defer srv.wait()
		c, err := provider.Open(t.Context(), srv.client(), newRequest(t), time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if c.Resp.StatusCode != 200 || c.Resp.Header.Get("Content-Type") != "text/event-stream" {
			t.Errorf("response = %d %v", c.Resp.StatusCode, c.Resp.Header)
		}
		body, err := readBody(t, c, 100)
		if body != "data: 1\n\ndata: 2\n\n" || !errors.Is(err, io.EOF) {
			t.Errorf("body = %q, err %v; want both events and EOF", body, err)
		}
	})
}

// Each byte re-arms the idle timer: a slow stream that never pauses for
// the idle timeout is read to its end however long it takes in total.
func TestOpenSlowStreamIsNotIdle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		idle := 10 * time.Second
		beats := []beat{{wait: 9 * time.Second, data: chunkedHead}}
		want := ""
		for i := range 8 {
			s := fmt.Sprintf("%d", i)
			beats = append(beats, beat{wait: 9 * time.Second, data: chunk(s)})
			want += s
		}
		beats = append(beats, beat{wait: 9 * time.Second, data: lastChunk})
		start := time.Now()
		srv := &pipeServer{beats: beats}
		defer srv.wait()
		c, err := provider.Open(t.Context(), srv.client(), newRequest(t), idle)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		body, err := readBody(t, c, 100)
		if body != want || !errors.Is(err, io.EOF) {
			t.Errorf("body = %q, err %v; want %q and EOF", body, err, want)
		}
		if d := time.Since(start); d <= idle {
			t.Fatalf("the stream took %s on the bubble's clock; the test needs more than the idle timeout", d)
		}
	})
}

func TestOpenIdleTimeout(t *testing.T) {
	tests := []struct {
		name     string
		idle     time.Duration
		beats    []beat
		wantBody string // "" when Open itself fails
		wantIdle string
	}{
		{"before the headers", 10 * time.Second, []beat{{wait: 11 * time.Second, data: chunkedHead}}, "", "10s"},
		{"inside the body", 10 * time.Second, []beat{{data: chunkedHead + chunk("data: 1\n")}, {wait: 9 * time.Second, data: chunk("da")}, {wait: 11 * time.Second, data: chunk("ta: 2\n\n")}}, "data: 1\nda", "10s"},
		{"default before the headers", 0, []beat{{wait: 121 * time.Second, data: chunkedHead}}, "", "2m0s"},
		{"negative is the default", -time.Second, []beat{{wait: 121 * time.Second, data: chunkedHead}}, "", "2m0s"},
		{"the smallest is honoured", time.Nanosecond, []beat{{wait: time.Second, data: chunkedHead}}, "", "1ns"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := &pipeServer{beats: tt.beats}
				defer srv.wait()
				c, err := provider.Open(t.Context(), srv.client(), newRequest(t), tt.idle)
				if tt.wantBody == "" {
					if c != nil {
						c.Close()
					}
					wantIdleTimeout(t, err, tt.wantIdle)
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				body, err := readBody(t, c, 100)
				if body != tt.wantBody {
					t.Errorf("body = %q, want %q", body, tt.wantBody)
				}
				wantIdleTimeout(t, err, tt.wantIdle)
			})
		})
	}
}

// Below the default idle timeout, a slow first byte is waited for.
func TestOpenDefaultIdleWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := &pipeServer{beats: []beat{{wait: 119 * time.Second, data: chunkedHead + lastChunk}}}
		defer srv.wait()
		c, err := provider.Open(t.Context(), srv.client(), newRequest(t), 0)
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		defer c.Close()
		if body, err := readBody(t, c, 10); body != "" || !errors.Is(err, io.EOF) {
			t.Errorf("body = %q, err %v", body, err)
		}
	})
}

// A read that returns no byte is not data: it does not re-arm the timer.
func TestOpenEmptyReadsAreNotData(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		head := "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n"
		srv := &pipeServer{beats: []beat{{data: head}, {wait: 25 * time.Second, data: "x"}}}
		defer srv.wait()
		c, err := provider.Open(t.Context(), srv.client(), newRequest(t), 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		for range 4 {
			time.Sleep(5 * time.Second)
			if n, err := c.Body.Read(nil); n != 0 || err != nil {
				break // the idle timeout already ended the body
			}
		}
		body, err := readBody(t, c, 10)
		if body != "" {
			t.Errorf("body = %q, want nothing", body)
		}
		wantIdleTimeout(t, err, "10s")
	})
}

// The caller's cancellation and deadline come back as the context's own
// errors (never a retryable network failure), before or after the headers.
func TestOpenCallerEnds(t *testing.T) {
	for _, afterHeaders := range []bool{false, true} {
		for _, deadline := range []bool{false, true} {
			t.Run(fmt.Sprintf("headers=%v deadline=%v", afterHeaders, deadline), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					ctx, cancel := context.WithCancel(t.Context())
					want := context.Canceled
					if deadline {
						ctx, cancel = context.WithTimeout(t.Context(), 5*time.Second)
						want = context.DeadlineExceeded
					}
					defer cancel()
					if !deadline {
						time.AfterFunc(5*time.Second, cancel)
					}
					beats := []beat{{wait: time.Minute, data: chunkedHead}}
					if afterHeaders {
						beats = []beat{{data: chunkedHead + chunk("x")}, {wait: time.Minute, data: lastChunk}}
					}
					srv := &pipeServer{beats: beats}
					defer srv.wait()
					c, err := provider.Open(ctx, srv.client(), newRequest(t), 30*time.Second)
					if afterHeaders {
						if err != nil {
							t.Fatal(err)
						}
						defer c.Close()
						var body string
						body, err = readBody(t, c, 10)
						if body != "x" {
							t.Errorf("body = %q", body)
						}
					}
					if err != want {
						t.Errorf("err = %v (%T), want %v itself", err, err, want)
					}
				})
			})
		}
	}
}

// roundTrip is a transport made of a function.
type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestOpenTransportFailure(t *testing.T) {
	t.Parallel()
	var exchange context.Context
	client := &http.Client{Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
		exchange = r.Context()
		return nil, errors.New("dial tcp: connection refused")
	})}
	c, err := provider.Open(t.Context(), client, newRequest(t), time.Minute)
	if c != nil {
		t.Errorf("Open returned a Conn with its error")
	}
	var pe *ai.ProviderError
	if !errors.As(err, &pe) || pe.Class != ai.ClassNetwork || !pe.Retryable || !strings.Contains(pe.Message, "connection refused") {
		t.Fatalf("err = %#v, want a retryable network error", err)
	}
	// The failed exchange's context is released at once.
	if exchange == nil || exchange.Err() == nil {
		t.Error("the failed exchange's context is still live")
	}
}

// closeBody records that it was closed.
type closeBody struct {
	io.Reader
	closed bool
}

func (b *closeBody) Close() error { b.closed = true; return nil }

func TestConnClose(t *testing.T) {
	t.Parallel()
	body := &closeBody{Reader: strings.NewReader("data: 1\n\n")}
	var exchange context.Context
	client := &http.Client{Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
		exchange = r.Context()
		return &http.Response{StatusCode: 200, Body: body, Request: r}, nil
	})}
	c, err := provider.Open(t.Context(), client, newRequest(t), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if exchange.Err() != nil {
		t.Fatal("the exchange ended before Close")
	}
	c.Close()
	if !body.closed || exchange.Err() == nil {
		t.Errorf("after Close: body closed %v, exchange context %v", body.closed, exchange.Err())
	}
}

func TestConnErr(t *testing.T) {
	t.Parallel()
	open := func(ctx context.Context) *provider.Conn {
		client := &http.Client{Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
			return &http.Response{StatusCode: 200, Body: io.NopCloser(strings.NewReader("")), Request: r}, nil
		})}
		c, err := provider.Open(ctx, client, newRequest(t), time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		return c
	}
	c := open(t.Context())
	if err := c.Err(nil); err != nil {
		t.Errorf("Err(nil) = %v", err)
	}
	classified := &ai.ProviderError{Class: ai.ClassOverloaded, Retryable: true, Message: "overloaded"}
	if err := c.Err(fmt.Errorf("decode: %w", classified)); !errors.Is(err, classified) {
		t.Errorf("Err(classified) = %v, want it returned as it is", err)
	}
	var pe *ai.ProviderError
	if err := c.Err(io.ErrUnexpectedEOF); !errors.As(err, &pe) || pe.Class != ai.ClassNetwork || !pe.Retryable ||
		pe.Message != io.ErrUnexpectedEOF.Error() || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("Err(cut) = %#v, want a retryable network error wrapping it", err)
	}
}
