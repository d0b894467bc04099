package ai

import (
	"encoding/json"
	"fmt"
	"slices"
)

// This file is the reference the fast decoder is fuzzed against: the
// straightforward decoding through maps of json.RawMessage that Message and
// Content used before the scanner moved here. It never calls the fast path.

var (
	refContentKeys = map[string]bool{
		"type": true, "text": true, "textSignature": true, "thinking": true,
		"thinkingSignature": true, "redacted": true, "data": true, "mimeType": true,
		"id": true, "name": true, "arguments": true,
	}
	refMessageKeys = map[string]bool{
		"role": true, "content": true, "timestamp": true, "api": true,
		"provider": true, "model": true, "usage": true, "stopReason": true,
		"errorMessage": true, "toolCallId": true, "toolName": true,
		"details": true, "isError": true,
	}
)

func refDecodeMessage(b []byte) (Message, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return Message{}, fmt.Errorf("message: %w", err)
	}
	var m Message
	r := refReader{m: fields}
	r.into("role", &m.Role)
	if raw, ok := fields["content"]; ok && r.err == nil {
		m.Content, m.ContentString, r.err = refDecodeContentValue(raw)
	}
	r.into("timestamp", &m.Timestamp)
	r.into("api", &m.API)
	r.into("provider", &m.Provider)
	r.into("model", &m.Model)
	r.into("usage", &m.Usage)
	r.into("stopReason", &m.StopReason)
	r.into("errorMessage", &m.ErrorMessage)
	r.into("toolCallId", &m.ToolCallID)
	r.into("toolName", &m.ToolName)
	if d, ok := fields["details"]; ok && string(d) != "null" {
		m.Details = slices.Clone(d)
	}
	r.into("isError", &m.IsError)
	if r.err != nil {
		return Message{}, fmt.Errorf("message: %w", r.err)
	}
	switch m.Role {
	case RoleUser, RoleAssistant, RoleToolResult:
		m.Extra = refExtra(fields, refMessageKeys)
	default:
		m = Message{Role: m.Role, Content: m.Content, ContentString: m.ContentString}
		m.Extra = refExtra(fields, map[string]bool{"role": true, "content": true})
	}
	return m, nil
}

// refDecodeContentValue reads a string (or null) as one text block, else
// an array of blocks.
func refDecodeContentValue(raw json.RawMessage) ([]Content, bool, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []Content{TextContent(s)}, true, nil
	}
	var blocks []json.RawMessage
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return nil, false, fmt.Errorf("field content: %w", err)
	}
	out := []Content{}
	for _, b := range blocks {
		c, err := refDecodeContent(b)
		if err != nil {
			return nil, false, fmt.Errorf("field content: %w", err)
		}
		out = append(out, c)
	}
	return out, false, nil
}

func refDecodeContent(b []byte) (Content, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return Content{}, fmt.Errorf("content block: %w", err)
	}
	var c Content
	r := refReader{m: m}
	r.into("type", &c.Type)
	r.into("text", &c.Text)
	r.into("textSignature", &c.TextSignature)
	r.into("thinking", &c.Thinking)
	r.into("thinkingSignature", &c.ThinkingSignature)
	r.into("redacted", &c.Redacted)
	r.into("data", &c.Data)
	r.into("mimeType", &c.MimeType)
	r.into("id", &c.ID)
	r.into("name", &c.Name)
	if a, ok := m["arguments"]; ok {
		c.Arguments = slices.Clone(a)
	}
	if r.err != nil {
		return Content{}, fmt.Errorf("content block: %w", r.err)
	}
	switch c.Type {
	case TypeText, TypeThinking, TypeImage, TypeToolCall:
		c.Extra = refExtra(m, refContentKeys)
	default:
		c.Extra = refExtra(m, map[string]bool{"type": true})
	}
	return c, nil
}

// refReader pulls typed fields out of a decoded object, keeping the first error.
type refReader struct {
	m   map[string]json.RawMessage
	err error
}

func (r *refReader) into(k string, dst any) {
	v, ok := r.m[k]
	if !ok || r.err != nil || string(v) == "null" {
		return
	}
	if err := json.Unmarshal(v, dst); err != nil {
		r.err = fmt.Errorf("field %s: %w", k, err)
	}
}

func refExtra(m map[string]json.RawMessage, known map[string]bool) map[string]json.RawMessage {
	var out map[string]json.RawMessage
	for k, v := range m {
		if known[k] {
			continue
		}
		if out == nil {
			out = make(map[string]json.RawMessage)
		}
		out[k] = slices.Clone(v)
	}
	return out
}
