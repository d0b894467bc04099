package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// httpTransport is the streamable HTTP transport of the server, its
// headers (expanded) and bearer token on every request. The values are
// held in memory only: no message, listing or log shows a header.
func (c *conn) httpTransport() (sdk.Transport, error) {
	h := http.Header{}
	for _, k := range sortedKeys(c.server.Headers) {
		v, err := expand(c.server.Headers[k], c.m.opts.Getenv)
		if err != nil {
			return nil, fmt.Errorf("header %s: %v", k, err)
		}
		h.Set(k, v)
	}
	if name := c.server.BearerTokenEnv; name != "" {
		tok := c.m.opts.Getenv(name)
		if tok == "" {
			return nil, fmt.Errorf("bearerTokenEnvVar %s is not set: set it to the server's token", name)
		}
		h.Set("Authorization", "Bearer "+tok)
	}
	base := c.m.opts.HTTPClient
	rt := base.Transport
	var closeIdle func()
	if rt == nil {
		// A transport of its own: stopping the server closes its idle
		// connections, which the process-wide pool would keep open.
		tr := http.DefaultTransport.(*http.Transport).Clone()
		rt, closeIdle = tr, tr.CloseIdleConnections
	}
	client := *base
	ctx, cancel := context.WithCancel(context.Background())
	c.mu.Lock()
	c.cancelHTTP, c.closeIdle = cancel, closeIdle
	c.mu.Unlock()
	origin, err := url.Parse(c.server.URL)
	if err != nil {
		cancel()
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // without the address, which may hold a credential
		}
		return nil, fmt.Errorf("url: %v: fix the server's address", err)
	}
	client.Transport = &headerTransport{next: rt, header: h, ctx: ctx, origin: origin}
	return &sdk.StreamableClientTransport{Endpoint: c.server.URL, HTTPClient: &client, MaxRetries: 2}, nil
}

// headerTransport adds the configured headers to each request to the
// configured origin (a redirect elsewhere gets none of them: they are
// credentials), and ends every request still going when ctx ends: a
// server that never answers holds nothing of gopi's once it is given up.
type headerTransport struct {
	next   http.RoundTripper
	header http.Header
	ctx    context.Context
	origin *url.URL
}

// sameOrigin says whether u has the configured scheme, host and port.
func (t *headerTransport) sameOrigin(u *url.URL) bool {
	return strings.EqualFold(u.Scheme, t.origin.Scheme) && strings.EqualFold(u.Hostname(), t.origin.Hostname()) && port(u) == port(t.origin)
}

func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if strings.EqualFold(u.Scheme, "https") {
		return "443"
	}
	return "80"
}

func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancel(req.Context())
	stop := context.AfterFunc(t.ctx, cancel)
	done := func() { stop(); cancel() }
	req = req.Clone(ctx)
	if t.sameOrigin(req.URL) {
		for k, vs := range t.header {
			req.Header[k] = vs
		}
	}
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		done()
		return nil, err
	}
	resp.Body = &doneBody{ReadCloser: resp.Body, done: done}
	return resp, nil
}

// doneBody runs done once the body is closed.
type doneBody struct {
	io.ReadCloser
	once sync.Once
	done func()
}

func (b *doneBody) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(b.done)
	return err
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
