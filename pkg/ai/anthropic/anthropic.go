// Package anthropic is the model adapter for Anthropic's Messages API
// (POST {base}/v1/messages with "stream": true) on net/http.
//
// It streams text, thinking (signatures and redacted thinking kept for
// replay) and tool calls through ai.Builder, so it emits the common event
// grammar; marks the system prompt and the last user message for prompt
// caching; maps thinking levels to budgets (or adaptive effort on models
// that have it); and retries failed requests under a provider.Policy. A
// stream that ends without message_stop is a truncation, never a success.
// The API key is sent in x-api-key and never appears in an error.
package anthropic

import (
	"context"
	"iter"
	"net/http"
	"strings"
	"time"

	"gopi/pkg/ai"
	"gopi/pkg/ai/provider"
	"gopi/pkg/ai/sse"
)

// Wire constants.
const (
	API            = "anthropic-messages"
	DefaultBaseURL = "https://api.anthropic.com"
	Version        = "2023-06-01"
)

// DefaultBetas are sent in anthropic-beta when Config.Betas is nil.
var DefaultBetas = []string{"fine-grained-tool-streaming-2025-05-14"}

// interleavedBeta lets budget-thinking models think between tool calls;
// adaptive models do so without it.
const interleavedBeta = "interleaved-thinking-2025-05-14"

// Config describes one Anthropic model endpoint.
type Config struct {
	Info       ai.Info
	APIKey     string
	BaseURL    string            // default DefaultBaseURL; "/v1/messages" is appended
	HTTPClient *http.Client      // default http.DefaultClient
	Headers    map[string]string // extra request headers
	Retry      provider.Policy
	// IdleTimeout ends a stream that sends no byte for this long (default 120s).
	IdleTimeout time.Duration
	// StopGrace is how long the stream is still read after message_stop,
	// for a late event that would break the grammar (default 2s).
	StopGrace time.Duration
	Now       func() time.Time                                 // default time.Now
	Sleep     func(ctx context.Context, d time.Duration) error // default provider.SleepContext
	// Betas are the anthropic-beta features; nil means DefaultBetas.
	Betas []string
	// NoCache leaves out the cache_control markers.
	NoCache bool
}

// DefaultStopGrace bounds the read after message_stop.
const DefaultStopGrace = 2 * time.Second

// Model streams responses of one Anthropic model. It is safe for
// concurrent use.
type Model struct {
	cfg  Config
	http *provider.Client
}

// New returns a Model; unset Config fields take their defaults.
func New(cfg Config) *Model {
	if cfg.StopGrace <= 0 {
		cfg.StopGrace = DefaultStopGrace
	}
	if cfg.Betas == nil {
		cfg.Betas = DefaultBetas
	}
	c := provider.NewClient(provider.Client{
		Info: cfg.Info, BaseURL: cfg.BaseURL, Path: "/v1/messages", HTTP: cfg.HTTPClient, Headers: cfg.Headers,
		Key: cfg.APIKey, KeyHeader: "x-api-key", Retry: cfg.Retry, Idle: cfg.IdleTimeout, Now: cfg.Now, Sleep: cfg.Sleep,
		ErrorBody: errorFromBody,
	}, DefaultBaseURL, API)
	cfg.Info = c.Info
	return &Model{cfg: cfg, http: c}
}

// Info describes the model.
func (m *Model) Info() ai.Info { return m.cfg.Info }

// Stream sends req and streams the answer; see ai.Model.
func (m *Model) Stream(ctx context.Context, req *ai.Request) iter.Seq[ai.Event] {
	body, thinking, answer, err := prepareBody(m.cfg, req)
	call := provider.Call{Err: err, Headers: func(h http.Header) { m.setHeaders(h, thinking) }}
	if err == nil {
		call.Body = body.request
	}
	call.Read = func(ctx context.Context, x *provider.Exchange, b *ai.Builder) (ai.StopReason, error) {
		d := newDecoder(b, m.cfg.Info)
		d.answer = answer
		// After message_stop the decoder reads on for a late event only
		// StopGrace long, so a proxy that keeps the stream open after a
		// whole message costs a moment, not the idle timeout.
		d.onStop = func() { x.EndAfter(m.cfg.StopGrace) }
		return d.run(sse.NewReader(x.Body), x.Conn)
	}
	return m.http.Stream(ctx, call)
}

// setHeaders sets Anthropic's own headers: the API version and the betas.
func (m *Model) setHeaders(h http.Header, thinking bool) {
	h.Set("anthropic-version", Version)
	betas := m.cfg.Betas
	if thinking && !adaptive(m.cfg.Info.ID) {
		betas = append(betas[:len(betas):len(betas)], interleavedBeta)
	}
	if len(betas) > 0 {
		h.Set("anthropic-beta", strings.Join(betas, ","))
	}
}

var _ ai.Model = (*Model)(nil)
