// Package responses is the model adapter for OpenAI's Responses API
// (POST {base}/responses with "stream": true), the only API that serves
// the codex and -pro models.
//
// It streams text (response.output_text.delta), reasoning summaries
// (response.reasoning_summary_text.delta) as thinking blocks, and function
// calls; retries failed requests under a provider.Policy; and ends a
// stream that stops without its terminal event (response.completed,
// response.incomplete or response.failed) as a truncation, never a
// success. The API key is sent as a bearer token and never appears in an
// error.
//
// Requests are stateless ("store": false), so reasoning is carried from
// turn to turn by the client: every request of a reasoning model asks for
// "reasoning.encrypted_content", and each reasoning item the model returns
// is kept, serialized, as its thinking block's ThinkingSignature (as pi's
// openai-responses provider keeps it) and sent back as an input item in
// the next request. The id of an assistant text's message item is kept as
// the text block's TextSignature ({"v":1,"id":…}, pi's form).
//
// A function call has two ids: call_id, which its output answers, and the
// output item's id (fc_…), which pairs it with the reasoning before it.
// Both are kept in the tool call's id as "call_id|item_id" (pi's form);
// a tool result answers with the call_id part.
package responses

import (
	"context"
	"iter"
	"net/http"
	"time"

	"gopi/pkg/ai"
	"gopi/pkg/ai/provider"
	"gopi/pkg/ai/sse"
)

// Wire constants.
const (
	API            = "openai-responses"
	DefaultBaseURL = "https://api.openai.com/v1"
)

// Config describes one Responses API model endpoint; its fields are
// provider.Endpoint's, to which New converts it.
type Config struct {
	Info       ai.Info
	APIKey     string            // may be empty for local servers
	BaseURL    string            // default DefaultBaseURL; "/responses" is appended
	HTTPClient *http.Client      // default http.DefaultClient
	Headers    map[string]string // extra request headers
	Retry      provider.Policy
	// IdleTimeout ends a stream that sends no byte for this long (default 120s).
	IdleTimeout time.Duration
	Now         func() time.Time                                 // default time.Now
	Sleep       func(ctx context.Context, d time.Duration) error // default provider.SleepContext
}

// Model streams responses of one Responses API model. It is safe for
// concurrent use.
type Model struct {
	cfg  Config
	http *provider.Client
}

// New returns a Model; unset Config fields take their defaults.
func New(cfg Config) *Model {
	c := provider.BearerClient(provider.Endpoint(cfg), "/responses", DefaultBaseURL, API)
	cfg.Info = c.Info
	return &Model{cfg: cfg, http: c}
}

// Info describes the model.
func (m *Model) Info() ai.Info { return m.cfg.Info }

// Stream sends req and streams the answer; see ai.Model.
func (m *Model) Stream(ctx context.Context, req *ai.Request) iter.Seq[ai.Event] {
	body, err := buildBody(m.cfg.Info, req)
	return m.http.Stream(ctx, provider.Call{Body: provider.BytesBody(body), Err: err, Read: m.read})
}

func (m *Model) read(_ context.Context, x *provider.Exchange, b *ai.Builder) (ai.StopReason, error) {
	return newDecoder(b, m.cfg.Info).run(sse.NewReader(x.Body), x.Conn)
}

var _ ai.Model = (*Model)(nil)
