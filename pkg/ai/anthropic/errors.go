package anthropic

import (
	"encoding/json"

	"gopi/pkg/ai"
	"gopi/pkg/ai/provider"
)

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

// errorFromBody reads an error response: Anthropic's own shape first; a
// gateway in front of it (Bedrock, Vertex, a proxy) may answer in
// another, read as any provider's.
func errorFromBody(raw []byte) provider.APIError {
	var body errorBody
	if json.Unmarshal(raw, &body) == nil && body.Error.Message != "" {
		return body.apiError()
	}
	return provider.ErrorFromBody(raw)
}

// eventError classifies an error event inside a 200 stream.
func eventError(data string) *ai.ProviderError {
	var body errorBody
	if json.Unmarshal([]byte(data), &body) != nil || body.Error.Type == "" {
		body.Error.Type, body.Error.Message = "api_error", data
	}
	return provider.Classify(provider.Status{}, body.apiError())
}
