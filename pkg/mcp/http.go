package mcp

import (
	"fmt"
	"net/http"
	"slices"

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
	if rt == nil {
		rt = http.DefaultTransport
	}
	client := *base
	client.Transport = &headerTransport{next: rt, header: h}
	return &sdk.StreamableClientTransport{Endpoint: c.server.URL, HTTPClient: &client, MaxRetries: 2}, nil
}

// headerTransport adds the configured headers to each request.
type headerTransport struct {
	next   http.RoundTripper
	header http.Header
}

func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for k, vs := range t.header {
		req.Header[k] = vs
	}
	return t.next.RoundTrip(req)
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
