package responses

import (
	"encoding/json"
	"strings"

	"gopi/pkg/ai"
	"gopi/pkg/ai/provider"
)

// apiError is {error:{message,type,param,code}}; servers that imitate the
// API also send {error:"text"} or {message:"text"}, and code may be a
// number.
type apiError struct {
	Message string          `json:"message"`
	Type    string          `json:"type"`
	Code    json.RawMessage `json:"code"`
}

func (e apiError) provider() provider.APIError {
	return provider.APIError{Type: e.Type, Code: provider.CodeText(e.Code), Message: e.Message}
}

// streamError classifies a failure reported inside a 200 stream (an error
// event or response.failed), which names a code but seldom a type. The
// codes OpenAI documents for it classify by themselves
// (context_length_exceeded, rate_limit_exceeded, insufficient_quota); an
// overloaded server is overloaded; server_error, or no code at all, is a
// server error, which may be retried; any other code (invalid_prompt,
// invalid_image…) is the request's fault and is not.
func streamError(ae provider.APIError) *ai.ProviderError {
	if ae.Message == "" {
		ae.Message = "the response failed without an error message"
	}
	pe := provider.Classify(provider.Status{}, ae)
	if pe.Class != ai.ClassServer || ae.Type != "" {
		return pe
	}
	switch {
	case strings.Contains(ae.Code, "overloaded"):
		pe.Class, pe.Retryable = ai.ClassOverloaded, true
	case ae.Code == "" || ae.Code == "server_error":
		pe.Retryable = true
	}
	return pe
}
