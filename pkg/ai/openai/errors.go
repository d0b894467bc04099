package openai

import (
	"gopi/pkg/ai"
	"gopi/pkg/ai/provider"
)

// parseError reads an error object from raw JSON in any of the shapes
// OpenAI-compatible servers send (provider.ParseErrorBody); ok is false
// when raw holds none.
func parseError(raw []byte) (provider.APIError, bool) {
	return provider.ParseErrorBody(raw)
}

// streamError classifies an error object sent inside a 200 stream; one
// without a type is taken for a server error, which may be retried.
func streamError(ae provider.APIError) *ai.ProviderError {
	if ae.Type == "" {
		ae.Type = "server_error"
	}
	return provider.Classify(provider.Status{}, ae)
}
