package provider

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxMessage bounds the provider's text kept in an error message: an HTML
// page from a proxy is not worth more on a terminal.
const maxMessage = 2000

// ParseErrorBody reads what an error response says, in the shapes
// providers send: {"error":{"message","type","code"}} (OpenAI, Azure,
// Anthropic's inner object, llama.cpp, vLLM), Gemini's {"error":{"code":400,
// "message","status":"INVALID_ARGUMENT"}} and the same wrapped in an array
// ([{"error":{…}}]), {"error":"text"} (Ollama), {"message":"text"} and
// {"detail":"text"}. ok is false when raw holds none of them.
func ParseErrorBody(raw []byte) (APIError, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '[' {
		var list []json.RawMessage
		if json.Unmarshal(raw, &list) != nil {
			return APIError{}, false
		}
		for _, item := range list {
			if e, ok := ParseErrorBody(item); ok {
				return e, true
			}
		}
		return APIError{}, false
	}
	var body struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
		Type    string          `json:"type"`
		Code    json.RawMessage `json:"code"`
	}
	if json.Unmarshal(raw, &body) != nil {
		return APIError{}, false
	}
	var s string
	var inner struct {
		Message string          `json:"message"`
		Type    string          `json:"type"`
		Code    json.RawMessage `json:"code"`
		Status  json.RawMessage `json:"status"` // Gemini's is text, Azure's a number
	}
	switch {
	case len(body.Error) > 0 && json.Unmarshal(body.Error, &s) == nil && s != "":
		return APIError{Message: s}, true
	case len(body.Error) > 0 && json.Unmarshal(body.Error, &inner) == nil && (inner.Message != "" || inner.Type != ""):
		typ := inner.Type
		if typ == "" {
			typ = wordCode(inner.Status) // Gemini: INVALID_ARGUMENT, RESOURCE_EXHAUSTED
		}
		return APIError{Type: typ, Code: wordCode(inner.Code), Message: inner.Message}, true
	case body.Message != "":
		t := body.Type
		if t == "error" { // a bare {"type":"error","message":…}
			t = ""
		}
		return APIError{Type: t, Code: wordCode(body.Code), Message: body.Message}, true
	case len(body.Detail) > 0 && json.Unmarshal(body.Detail, &s) == nil && s != "":
		return APIError{Message: s}, true
	}
	return APIError{}, false
}

// ErrorFromBody is ParseErrorBody with a fallback: a body in no known
// shape is its own message (an HTML page or plain text from a proxy),
// trimmed and bounded.
func ErrorFromBody(raw []byte) APIError {
	if e, ok := ParseErrorBody(raw); ok {
		return e
	}
	return APIError{Message: string(raw)}
}

// CodeText is a code as text: a string unquoted, a number as written,
// null as empty.
func CodeText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	if c := strings.TrimSpace(string(raw)); c != "null" {
		return c
	}
	return ""
}

// wordCode is CodeText without numbers: a numeric code repeats the HTTP
// status and only clutters the message.
func wordCode(raw json.RawMessage) string {
	c := CodeText(raw)
	if _, err := strconv.Atoi(c); err == nil {
		return ""
	}
	return c
}

// clip bounds s to maxMessage bytes at a rune boundary.
func clip(s string) string {
	if len(s) <= maxMessage {
		return s
	}
	cut := maxMessage
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
