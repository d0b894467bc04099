package provider

import (
	"context"
	"net/http"
	"time"

	"gopi/pkg/ai"
)

// Endpoint is the configuration of an adapter on an OpenAI-style endpoint
// (Chat Completions, Responses): the fields its Config shares with every
// such adapter, in the same order, so that a Config with no others
// converts to it.
type Endpoint struct {
	Info        ai.Info
	APIKey      string            // may be empty for local servers
	BaseURL     string            // default: the adapter's; the path is appended
	HTTPClient  *http.Client      // default http.DefaultClient
	Headers     map[string]string // extra request headers
	Retry       Policy
	IdleTimeout time.Duration                                    // default DefaultIdleTimeout
	Now         func() time.Time                                 // default time.Now
	Sleep       func(ctx context.Context, d time.Duration) error // default SleepContext
}

// BearerClient is NewClient for e at path below its base URL (baseURL
// and api are the adapter's defaults), the key sent as
// "authorization: Bearer KEY".
func BearerClient(e Endpoint, path, baseURL, api string) *Client {
	return NewClient(Client{
		Info: e.Info, BaseURL: e.BaseURL, Path: path, HTTP: e.HTTPClient, Headers: e.Headers,
		Key: e.APIKey, KeyHeader: "authorization", KeyPrefix: "Bearer ", Retry: e.Retry, Idle: e.IdleTimeout,
		Now: e.Now, Sleep: e.Sleep,
	}, baseURL, api)
}
