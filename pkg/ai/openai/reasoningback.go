package openai

import (
	"encoding/json"
	"gopi/internal/pijson"
	"strings"
)

// reasoningBack collects, from an assistant message of this model, what
// its server asked to have sent back: the field its reasoning text came
// in, OpenRouter's reasoning_details and Gemini's thought signatures.
//
// A thinking block's signature is a field name ("reasoning_content",
// "reasoning"), a JSON array of reasoning_details (what gopi writes), or
// one reasoning_details object. A tool call's
// thoughtSignature is Gemini's signature, or, in sessions written by pi
// versions that kept OpenRouter's encrypted reasoning on the call it
// belongs to, one reasoning_details object.
type reasoningBack struct {
	field   string
	details []json.RawMessage
}

// signature takes a thinking block's signature: an array of details, one
// detail object, or the name of a field.
func (r *reasoningBack) signature(sig string) {
	switch {
	case strings.HasPrefix(sig, "["):
		var arr []json.RawMessage
		if json.Unmarshal([]byte(sig), &arr) == nil {
			r.details = append(r.details, arr...)
		}
	case strings.HasPrefix(sig, "{"):
		r.detail(sig)
	case r.field == "":
		r.field = sig
	}
}

// detail keeps sig when it is one reasoning_details object.
func (r *reasoningBack) detail(sig string) bool {
	var d struct {
		Type string `json:"type"`
	}
	if json.Unmarshal([]byte(sig), &d) != nil || !strings.HasPrefix(d.Type, "reasoning.") {
		return false
	}
	r.details = append(r.details, json.RawMessage(sig))
	return true
}

// callSignature returns a tool call's extra_content for its signature
// (raw, a JSON string), or nil after keeping a reasoning_details object.
func (r *reasoningBack) callSignature(raw json.RawMessage) json.RawMessage {
	var sig string
	if len(raw) == 0 || json.Unmarshal(raw, &sig) != nil || sig == "" {
		return nil
	}
	if strings.HasPrefix(sig, "{") && r.detail(sig) {
		return nil
	}
	b := pijson.AppendString([]byte(`{"google":{"thought_signature":`), sig)
	return append(b, "}}"...)
}

// array is the reasoning_details to send, nil when none.
func (r *reasoningBack) array() json.RawMessage {
	if len(r.details) == 0 {
		return nil
	}
	b := []byte{'['}
	for i, d := range r.details {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, d...)
	}
	return append(b, ']')
}
