// Package openai is the model adapter for OpenAI's Chat Completions API
// (POST {base}/chat/completions with "stream": true) and the many servers
// that speak it: OpenAI itself, Ollama, vLLM, llama.cpp, LM Studio,
// OpenRouter, Groq, DeepSeek, Mistral, xAI, Moonshot, Gemini.
//
// It streams text, reasoning text (reasoning_content or reasoning deltas,
// as thinking blocks), and tool calls whose id, name and arguments arrive
// in fragments interleaved by index; asks for usage in the final chunk;
// and retries failed requests under a provider.Policy. A stream that ends
// with neither a finish_reason nor [DONE] is a truncation, never a success;
// one that stays open after its finish_reason is complete after a short
// grace for its usage chunk.
// Differences between servers in what a request may hold are Quirks,
// defaulted from the base URL; differences in what a stream holds are read
// as they come (chunk.go, toolcalls.go, details.go), and what a server asks
// to have sent back goes back (reasoningback.go, ids.go).
// The API key is sent as a bearer token and never appears in an error.
package openai

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
	API            = "openai-completions"
	DefaultBaseURL = "https://api.openai.com/v1"
)

// Quirks are the differences between Chat Completions servers.
type Quirks struct {
	// MaxTokensField names the output limit: "max_completion_tokens"
	// (OpenAI) or "max_tokens" (most other servers).
	MaxTokensField string
	// SystemRole is the role of the system prompt: "developer" (OpenAI) or
	// "system".
	SystemRole string
	// ToolResultName adds the tool's name to tool messages (Mistral).
	ToolResultName bool
	// ReasoningEffort sends reasoning_effort to reasoning models.
	ReasoningEffort bool
	// ThinkingAsText replays earlier thinking as <thinking> text instead
	// of the reasoning field the server sent it in (Mistral).
	ThinkingAsText bool
	// NineCharToolIDs sends tool call ids of exactly nine letters and
	// digits, the only ids Mistral accepts (see wireID).
	NineCharToolIDs bool
	// ResponseFormat sends an output schema as response_format
	// json_schema (OpenAI); servers that do not take it get the schema
	// in the system prompt only.
	ResponseFormat bool
}

// DefaultQuirks returns the quirks of a known server, by base URL, and
// the most widely accepted choices for any other.
func DefaultQuirks(baseURL string) Quirks {
	u := strings.ToLower(baseURL)
	switch {
	case u == "" || strings.Contains(u, "api.openai.com"):
		return Quirks{MaxTokensField: "max_completion_tokens", SystemRole: "developer", ReasoningEffort: true, ResponseFormat: true}
	case strings.Contains(u, "mistral.ai"):
		return Quirks{MaxTokensField: "max_tokens", SystemRole: "system", ToolResultName: true, ThinkingAsText: true, NineCharToolIDs: true}
	case strings.Contains(u, "api.x.ai"):
		return Quirks{MaxTokensField: "max_completion_tokens", SystemRole: "system"}
	case strings.Contains(u, "api.groq.com"):
		return Quirks{MaxTokensField: "max_completion_tokens", SystemRole: "system", ReasoningEffort: true}
	}
	return Quirks{MaxTokensField: "max_tokens", SystemRole: "system", ReasoningEffort: true}
}

// Config describes one Chat Completions model endpoint.
type Config struct {
	Info       ai.Info
	APIKey     string            // may be empty for local servers
	BaseURL    string            // default DefaultBaseURL; "/chat/completions" is appended
	HTTPClient *http.Client      // default http.DefaultClient
	Headers    map[string]string // extra request headers
	Retry      provider.Policy
	// IdleTimeout ends a stream that sends no byte for this long (default 120s).
	IdleTimeout time.Duration
	// FinishGrace is how long a stream may stay open after its
	// finish_reason for the usage chunk and [DONE] (default 2s); then the
	// answer is complete without them.
	FinishGrace time.Duration
	Now         func() time.Time                                 // default time.Now
	Sleep       func(ctx context.Context, d time.Duration) error // default provider.SleepContext
	// Quirks of the server; nil means DefaultQuirks(BaseURL).
	Quirks *Quirks
}

// Model streams responses of one Chat Completions model. It is safe for
// concurrent use.
type Model struct {
	cfg    Config
	quirks Quirks
	http   *provider.Client
}

// New returns a Model; unset Config fields take their defaults.
func New(cfg Config) *Model {
	if cfg.FinishGrace <= 0 {
		cfg.FinishGrace = finishGrace
	}
	c := provider.BearerClient(provider.Endpoint{Info: cfg.Info, APIKey: cfg.APIKey, BaseURL: cfg.BaseURL, HTTPClient: cfg.HTTPClient,
		Headers: cfg.Headers, Retry: cfg.Retry, IdleTimeout: cfg.IdleTimeout, Now: cfg.Now, Sleep: cfg.Sleep},
		"/chat/completions", DefaultBaseURL, API)
	cfg.Info = c.Info
	q := DefaultQuirks(c.BaseURL)
	if cfg.Quirks != nil {
		q = *cfg.Quirks
	}
	return &Model{cfg: cfg, quirks: q, http: c}
}

// Info describes the model.
func (m *Model) Info() ai.Info { return m.cfg.Info }

// Stream sends req and streams the answer; see ai.Model.
func (m *Model) Stream(ctx context.Context, req *ai.Request) iter.Seq[ai.Event] {
	body, err := buildBody(m.cfg.Info, m.quirks, req)
	return m.http.Stream(ctx, provider.Call{Body: provider.BytesBody(body), Err: err, Read: m.read})
}

// read parses a stream. Ending the exchange, not the caller's ctx, ends
// a stream that stays open too long after its finish_reason: the blocked
// read returns and the decoder, having the finish_reason, completes.
func (m *Model) read(ctx context.Context, x *provider.Exchange, b *ai.Builder) (ai.StopReason, error) {
	d := newDecoder(b, m.cfg.Info, m.http.Now().UnixMilli(), func() { x.EndAfter(m.cfg.FinishGrace) })
	return d.run(ctx, sse.NewReader(x.Body), x.Conn)
}

var _ ai.Model = (*Model)(nil)
