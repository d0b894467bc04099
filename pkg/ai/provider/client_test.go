package provider_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"gopi/pkg/ai"
	"gopi/pkg/ai/provider"
)

// readAll is a Call's Read that takes the whole body as the answer's text.
func readAll(_ context.Context, x *provider.Exchange, b *ai.Builder) (ai.StopReason, error) {
	data, err := io.ReadAll(x.Body)
	if err != nil {
		return "", x.Err(err)
	}
	i, _ := b.TextStart()
	b.TextDelta(i, string(data))
	b.TextEnd(i, "")
	return ai.StopStop, nil
}

func newClient(url string, c provider.Client) *provider.Client {
	c.BaseURL, c.Path = url+"/", "/v1/x"
	c.Retry = provider.Policy{MaxAttempts: 1}
	return provider.NewClient(c, "unused", "test-api")
}

// A request carries the body, the adapter's headers, the configuration's
// headers over them and the key last; a 200's body goes to Read.
func TestClientPostsBodyAndHeaders(t *testing.T) {
	var got http.Header
	var path, body string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, path = r.Header.Clone(), r.URL.Path
		b, _ := io.ReadAll(r.Body)
		body = string(b)
		io.WriteString(w, "answer")
	}))
	defer srv.Close()
	c := newClient(srv.URL, provider.Client{
		Key: "sk-1", KeyHeader: "authorization", KeyPrefix: "Bearer ",
		Headers: map[string]string{"x-mine": "config", "authorization": "overridden by the key"},
	})
	own := func(h http.Header) { h.Set("x-mine", "adapter"); h.Set("x-version", "7") }
	msg, err := ai.Collect(c.Stream(context.Background(), provider.Call{Body: provider.BytesBody([]byte(`{"a":1}`)), Headers: own, Read: readAll}))
	if err != nil || msg.Text() != "answer" || msg.API != "test-api" {
		t.Fatalf("message %+v, error %v", msg, err)
	}
	if path != "/v1/x" || body != `{"a":1}` {
		t.Errorf("posted %s to %s", body, path)
	}
	for k, want := range map[string]string{"Content-Type": "application/json", "Accept": "text/event-stream",
		"X-Mine": "config", "X-Version": "7", "Authorization": "Bearer sk-1"} {
		if got.Get(k) != want {
			t.Errorf("header %s = %q, want %q", k, got.Get(k), want)
		}
	}
}

// A status other than 200 is an *ai.ProviderError with the status, read
// by the adapter's ErrorBody, the key scrubbed; Read is not called.
func TestClientStatusError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusTooManyRequests)
		io.WriteString(w, `slow down, sk-secret`)
	}))
	defer srv.Close()
	var raw string
	c := newClient(srv.URL, provider.Client{Key: "sk-secret", KeyHeader: "x-api-key", ErrorBody: func(b []byte) provider.APIError {
		raw = string(b)
		return provider.APIError{Type: "rate_limit_error", Message: string(b)}
	}})
	read := func(context.Context, *provider.Exchange, *ai.Builder) (ai.StopReason, error) {
		t.Error("Read called for an error status")
		return "", nil
	}
	_, err := ai.Collect(c.Stream(context.Background(), provider.Call{Body: provider.BytesBody(nil), Read: read}))
	var pe *ai.ProviderError
	if !errors.As(err, &pe) || pe.Status != 429 || pe.Class != ai.ClassRateLimit {
		t.Fatalf("error %#v", err)
	}
	if raw != "slow down, sk-secret" || strings.Contains(err.Error(), "sk-secret") {
		t.Errorf("error body %q, error %v", raw, err)
	}
}

// A body that could not be built fails as internal, a malformed base URL
// as usage; neither sends anything.
func TestClientFailsBeforeSending(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	defer srv.Close()
	c := newClient(srv.URL, provider.Client{})
	_, err := ai.Collect(c.Stream(context.Background(), provider.Call{Err: errors.New("no body"), Read: readAll}))
	if ai.ClassOf(err) != ai.ClassInternal || !strings.Contains(err.Error(), "no body") {
		t.Errorf("unbuildable body: %v", err)
	}
	bad := newClient("http://bad\x7fhost", provider.Client{})
	_, err = ai.Collect(bad.Stream(context.Background(), provider.Call{Body: provider.BytesBody(nil), Read: readAll}))
	if ai.ClassOf(err) != ai.ClassUsage || !strings.Contains(err.Error(), "bad base URL") {
		t.Errorf("bad URL: %v", err)
	}
	if hits.Load() != 0 {
		t.Errorf("%d requests sent", hits.Load())
	}
}

// EndAfter ends a stream the server keeps open; the caller's context
// stays alive.
func TestClientEndAfter(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "final")
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	c := newClient(srv.URL, provider.Client{})
	ctx := context.Background()
	read := func(ctx context.Context, x *provider.Exchange, b *ai.Builder) (ai.StopReason, error) {
		buf := make([]byte, 5)
		if _, err := io.ReadFull(x.Body, buf); err != nil {
			return "", err
		}
		x.EndAfter(time.Millisecond)
		if _, err := x.Body.Read(buf); err == nil {
			t.Error("a read after the end succeeded")
		}
		if ctx.Err() != nil {
			t.Error("the caller's context ended")
		}
		return ai.StopStop, nil
	}
	if _, err := ai.Collect(c.Stream(ctx, provider.Call{Body: provider.BytesBody(nil), Read: read})); err != nil {
		t.Fatal(err)
	}
}

// Without a base URL of its own, a client posts to the adapter's, with
// its trailing slash dropped.
func TestClientDefaultBaseURL(t *testing.T) {
	var path string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { path = r.URL.Path }))
	defer srv.Close()
	c := provider.NewClient(provider.Client{Path: "/v1/x", Retry: provider.Policy{MaxAttempts: 1}}, srv.URL+"/base/", "test-api")
	if c.BaseURL != srv.URL+"/base" {
		t.Fatalf("base URL %q", c.BaseURL)
	}
	if _, err := ai.Collect(c.Stream(context.Background(), provider.Call{Body: provider.BytesBody(nil), Read: readAll})); err != nil || path != "/base/v1/x" {
		t.Errorf("posted to %q: %v", path, err)
	}
}

// A server nobody answers at is a network error, never an empty answer.
func TestClientConnectionRefused(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	msg, err := ai.Collect(newClient(url, provider.Client{}).Stream(context.Background(), provider.Call{Body: provider.BytesBody(nil), Read: readAll}))
	if ai.ClassOf(err) != ai.ClassNetwork || msg.StopReason != ai.StopError {
		t.Errorf("class %s stop %s: %v", ai.ClassOf(err), msg.StopReason, err)
	}
}
