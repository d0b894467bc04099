package openai

import (
	"io"
	"time"

	"gopi/pkg/ai"
	"gopi/pkg/ai/provider"
)

// maxErrorBody bounds how much of an error response is read.
const maxErrorBody = 64 << 10

// parseError reads an error object from raw JSON in any of the shapes
// OpenAI-compatible servers send (provider.ParseErrorBody); ok is false
// when raw holds none.
func parseError(raw []byte) (provider.APIError, bool) {
	return provider.ParseErrorBody(raw)
}

// statusError classifies a non-200 response from its status, headers and body.
func statusError(conn *provider.Conn, now time.Time) error {
	raw, err := io.ReadAll(io.LimitReader(conn.Body, maxErrorBody))
	if err != nil && len(raw) == 0 {
		return conn.Err(err)
	}
	ae := provider.ErrorFromBody(raw)
	st := provider.Status{Code: conn.Resp.StatusCode, Header: conn.Resp.Header, Now: now, RequestBytes: conn.RequestBytes}
	return provider.Classify(st, ae)
}

// streamError classifies an error object sent inside a 200 stream; one
// without a type is taken for a server error, which may be retried.
func streamError(ae provider.APIError) *ai.ProviderError {
	if ae.Type == "" {
		ae.Type = "server_error"
	}
	return provider.Classify(provider.Status{}, ae)
}
