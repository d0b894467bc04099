package anthropic

import (
	"encoding/json"
	"io"
	"time"

	"gopi/pkg/ai"
	"gopi/pkg/ai/provider"
)

// maxErrorBody bounds how much of an error response is read.
const maxErrorBody = 64 << 10

// errorBody is the JSON of an error response and of an error event.
type errorBody struct {
	Type  string `json:"type"`
	Error struct {
		Type    string `json:"type"`
		Message string `json:"message"`
		Details struct {
			ErrorCode string `json:"error_code"`
		} `json:"details"`
	} `json:"error"`
}

func (e errorBody) apiError() provider.APIError {
	return provider.APIError{Type: e.Error.Type, Code: e.Error.Details.ErrorCode, Message: e.Error.Message}
}

// statusError classifies a non-200 response from its status, headers and body.
func statusError(conn *provider.Conn, now time.Time) error {
	raw, err := io.ReadAll(io.LimitReader(conn.Body, maxErrorBody))
	if err != nil && len(raw) == 0 {
		return conn.Err(err)
	}
	// Anthropic's own shape first; a gateway in front of it (Bedrock,
	// Vertex, a proxy) may answer in another, read as any provider's.
	var body errorBody
	ae := provider.ErrorFromBody(raw)
	if json.Unmarshal(raw, &body) == nil && body.Error.Message != "" {
		ae = body.apiError()
	}
	st := provider.Status{Code: conn.Resp.StatusCode, Header: conn.Resp.Header, Now: now, RequestBytes: conn.RequestBytes}
	return provider.Classify(st, ae)
}

// eventError classifies an error event inside a 200 stream.
func eventError(data string) *ai.ProviderError {
	var body errorBody
	if json.Unmarshal([]byte(data), &body) != nil || body.Error.Type == "" {
		body.Error.Type, body.Error.Message = "api_error", data
	}
	return provider.Classify(provider.Status{}, body.apiError())
}
