package provider

import (
	"bytes"
	"context"
	"io"
	"iter"
	"net/http"
	"strings"
	"time"

	"gopi/pkg/ai"
)

// Client is the HTTP side every adapter shares: it posts a request body
// to one endpoint with the adapter's headers and the key, turns a status
// other than 200 into a classified *ai.ProviderError (Status set) read
// from the error body, and hands a 200's body to the adapter's stream
// parser, each attempt under a Runner's retry policy. An adapter keeps
// only its wire format: the body, its own headers, how its error body
// reads and its stream.
type Client struct {
	Info    ai.Info
	BaseURL string // Path is appended
	Path    string
	HTTP    *http.Client
	Headers map[string]string // the configuration's extra headers, after the adapter's own
	// Key is sent in KeyHeader after KeyPrefix ("authorization",
	// "Bearer "), unless it is empty; it never appears in an error.
	Key, KeyHeader, KeyPrefix string
	Retry                     Policy
	Idle                      time.Duration // stream idle timeout
	Now                       func() time.Time
	Sleep                     func(ctx context.Context, d time.Duration) error
	// ErrorBody reads an error response's body; nil means ErrorFromBody.
	ErrorBody func(raw []byte) APIError
}

// NewClient returns c with the defaults of unset fields: baseURL and api
// (the adapter's), http.DefaultClient, DefaultIdleTimeout, time.Now. A
// trailing slash of the base URL is dropped.
func NewClient(c Client, baseURL, api string) *Client {
	if c.BaseURL == "" {
		c.BaseURL = baseURL
	}
	c.BaseURL = strings.TrimRight(c.BaseURL, "/")
	if c.HTTP == nil {
		c.HTTP = http.DefaultClient
	}
	if c.Idle <= 0 {
		c.Idle = DefaultIdleTimeout
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Info.API == "" {
		c.Info.API = api
	}
	if c.ErrorBody == nil {
		c.ErrorBody = ErrorFromBody
	}
	return &c
}

// Call is one model request as an adapter hands it to Stream.
type Call struct {
	// Body returns a POST of the body to url, afresh for each attempt.
	Body func(url string) (*http.Request, error)
	// Err says the body could not be built: the stream fails with an
	// internal error and nothing is sent.
	Err error
	// Headers sets the adapter's own headers (nil: none).
	Headers func(h http.Header)
	// Read parses a 200 response's stream into b (see Attempt). ctx is
	// the caller's, not the exchange's.
	Read func(ctx context.Context, x *Exchange, b *ai.Builder) (ai.StopReason, error)
}

// BytesBody is a Call's Body for a body built whole.
func BytesBody(body []byte) func(url string) (*http.Request, error) {
	return func(url string) (*http.Request, error) {
		return http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	}
}

// Exchange is an attempt's response with status 200.
type Exchange struct {
	*Conn
	cancel context.CancelFunc
	end    *time.Timer
}

// EndAfter ends the exchange d from now: its reads then fail, and the
// parser, which has seen its final event, completes. It bounds the wait
// for a late event of a server that keeps the stream open after a whole
// answer.
func (x *Exchange) EndAfter(d time.Duration) { x.end = time.AfterFunc(d, x.cancel) }

// Stream sends the call and streams the answer, retrying under c.Retry.
func (c *Client) Stream(ctx context.Context, call Call) iter.Seq[ai.Event] {
	r := Runner{Info: c.Info, Policy: c.Retry, Now: c.Now, Sleep: c.Sleep, Secrets: []string{c.Key}}
	return r.Stream(ctx, func(ctx context.Context, b *ai.Builder) (ai.StopReason, error) {
		if call.Err != nil {
			return "", &ai.ProviderError{Class: ai.ClassInternal, Message: call.Err.Error(), Err: call.Err}
		}
		return c.attempt(ctx, call, b)
	})
}

func (c *Client) attempt(ctx context.Context, call Call, b *ai.Builder) (ai.StopReason, error) {
	hreq, err := call.Body(c.BaseURL + c.Path)
	if err != nil {
		return "", &ai.ProviderError{Class: ai.ClassUsage, Message: "bad base URL " + c.BaseURL, Err: err}
	}
	c.setHeaders(hreq.Header, call.Headers)
	// The exchange has its own context, so that ending it (EndAfter)
	// leaves the caller's alone.
	xctx, cancel := context.WithCancel(ctx)
	defer cancel()
	conn, err := Open(xctx, c.HTTP, hreq, c.Idle)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	if conn.Resp.StatusCode != http.StatusOK {
		return "", c.statusError(conn)
	}
	x := &Exchange{Conn: conn, cancel: cancel}
	defer func() {
		if x.end != nil {
			x.end.Stop()
		}
	}()
	return call.Read(ctx, x, b)
}

func (c *Client) setHeaders(h http.Header, own func(http.Header)) {
	h.Set("content-type", "application/json")
	h.Set("accept", "text/event-stream")
	if own != nil {
		own(h)
	}
	for k, v := range c.Headers {
		h.Set(k, v)
	}
	if c.Key != "" {
		h.Set(c.KeyHeader, c.KeyPrefix+c.Key)
	}
}

// maxErrorBody bounds how much of an error response is read.
const maxErrorBody = 64 << 10

// statusError classifies a non-200 response from its status, headers and
// body.
func (c *Client) statusError(conn *Conn) error {
	now := c.Now()
	raw, err := io.ReadAll(io.LimitReader(conn.Body, maxErrorBody))
	if err != nil && len(raw) == 0 {
		return conn.Err(err)
	}
	st := Status{Code: conn.Resp.StatusCode, Header: conn.Resp.Header, Now: now, RequestBytes: conn.RequestBytes}
	return Classify(st, c.ErrorBody(raw))
}
