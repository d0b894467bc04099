package openai

import (
	"gopi/internal/pijson"
	"strconv"
)

// This file writes a request as encoding/json would write the structs of
// request.go (fields in struct order, omitempty as tagged, raw JSON
// validated and compacted), except that strings are not HTML-escaped and
// are quoted by pijson.AppendString. A resumed session's body runs to
// megabytes, so it is written into one buffer sized by a cheap estimate,
// with no reflection and no intermediate copies.

// encode returns the request body.
func (r *request) encode() ([]byte, error) {
	return r.appendJSON(make([]byte, 0, r.size()))
}

func (r *request) size() int {
	n := len(`{"model":,"messages":[],"stream":false,"stream_options":{"include_usage":false},"max_tokens":,`+
		`"max_completion_tokens":,"temperature":,"tools":[],"reasoning_effort":}`) + pijson.QuotedSize(r.Model) + 3*pijson.NumSize +
		pijson.QuotedSize(r.ReasoningEffort)
	if r.ResponseFormat != nil {
		n += len(`,"response_format":{"type":"json_schema","json_schema":{"name":,"schema":,"strict":false}}`) +
			pijson.QuotedSize(r.ResponseFormat.JSONSchema.Name) + len(r.ResponseFormat.JSONSchema.Schema)
	}
	for i := range r.Messages {
		n += r.Messages[i].size() + 1
	}
	for i := range r.Tools {
		n += r.Tools[i].size() + 1
	}
	return n
}

func (r *request) appendJSON(b []byte) ([]byte, error) {
	var err error
	b = append(b, `{"model":`...)
	b = pijson.AppendString(b, r.Model)
	b = append(b, `,"messages":`...)
	if r.Messages == nil {
		b = append(b, "null"...)
	} else {
		if b, err = pijson.AppendArray(b, r.Messages, (*message).appendJSON); err != nil {
			return nil, err
		}
	}
	b = append(b, `,"stream":`...)
	b = strconv.AppendBool(b, r.Stream)
	if r.StreamOptions != nil {
		b = append(b, `,"stream_options":{"include_usage":`...)
		b = strconv.AppendBool(b, r.StreamOptions.IncludeUsage)
		b = append(b, '}')
	}
	if r.MaxTokens != 0 {
		b = append(b, `,"max_tokens":`...)
		b = strconv.AppendInt(b, int64(r.MaxTokens), 10)
	}
	if r.MaxCompletionTokens != 0 {
		b = append(b, `,"max_completion_tokens":`...)
		b = strconv.AppendInt(b, int64(r.MaxCompletionTokens), 10)
	}
	if r.Temperature != nil {
		b = append(b, `,"temperature":`...)
		if b, err = pijson.AppendFloat(b, *r.Temperature); err != nil {
			return nil, err
		}
	}
	if len(r.Tools) > 0 {
		if b, err = pijson.AppendArray(append(b, `,"tools":`...), r.Tools, (*tool).appendJSON); err != nil {
			return nil, err
		}
	}
	if r.ReasoningEffort != "" {
		b = append(b, `,"reasoning_effort":`...)
		b = pijson.AppendString(b, r.ReasoningEffort)
	}
	if r.ResponseFormat != nil {
		if b, err = r.ResponseFormat.appendJSON(append(b, `,"response_format":`...)); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

func (f *responseFormat) appendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"type":`...)
	b = pijson.AppendString(b, f.Type)
	b = append(b, `,"json_schema":{"name":`...)
	b = pijson.AppendString(b, f.JSONSchema.Name)
	b = append(b, `,"schema":`...)
	b, err := pijson.AppendRaw(b, f.JSONSchema.Schema)
	if err != nil {
		return nil, err
	}
	b = append(b, `,"strict":`...)
	b = strconv.AppendBool(b, f.JSONSchema.Strict)
	return append(b, "}}"...), nil
}

func (m *message) size() int {
	n := len(`{"role":,"content":}`) + pijson.QuotedSize(m.Role)
	switch c := m.Content.(type) {
	case string:
		n += pijson.QuotedSize(c)
	case []part:
		n += len(`[]`)
		for i := range c {
			n += c[i].size() + 1
		}
	default:
		n += 64
	}
	if m.Name != "" {
		n += len(`,"name":`) + pijson.QuotedSize(m.Name)
	}
	if len(m.ToolCalls) > 0 {
		n += len(`,"tool_calls":[]`)
	}
	for i := range m.ToolCalls {
		tc := &m.ToolCalls[i]
		n += len(`{"id":,"type":,"function":{"name":,"arguments":}},`) + pijson.QuotedSize(tc.ID) + pijson.QuotedSize(tc.Type) +
			pijson.QuotedSize(tc.Function.Name) + pijson.QuotedSize(tc.Function.Arguments)
		if len(tc.ExtraContent) > 0 {
			n += len(`,"extra_content":`) + len(tc.ExtraContent)
		}
	}
	if m.ToolCallID != "" {
		n += len(`,"tool_call_id":`) + pijson.QuotedSize(m.ToolCallID)
	}
	if m.ReasoningContent != "" {
		n += len(`,"reasoning_content":`) + pijson.QuotedSize(m.ReasoningContent)
	}
	if m.Reasoning != "" {
		n += len(`,"reasoning":`) + pijson.QuotedSize(m.Reasoning)
	}
	if len(m.ReasoningDetails) > 0 {
		n += len(`,"reasoning_details":`) + len(m.ReasoningDetails)
	}
	return n
}

func (m *message) appendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"role":`...)
	b = pijson.AppendString(b, m.Role)
	b = append(b, `,"content":`...)
	b, err := appendContent(b, m.Content)
	if err != nil {
		return nil, err
	}
	if m.Name != "" {
		b = append(b, `,"name":`...)
		b = pijson.AppendString(b, m.Name)
	}
	if len(m.ToolCalls) > 0 {
		if b, err = pijson.AppendArray(append(b, `,"tool_calls":`...), m.ToolCalls, (*toolCall).appendJSON); err != nil {
			return nil, err
		}
	}
	if m.ToolCallID != "" {
		b = append(b, `,"tool_call_id":`...)
		b = pijson.AppendString(b, m.ToolCallID)
	}
	if m.ReasoningContent != "" {
		b = append(b, `,"reasoning_content":`...)
		b = pijson.AppendString(b, m.ReasoningContent)
	}
	if m.Reasoning != "" {
		b = append(b, `,"reasoning":`...)
		b = pijson.AppendString(b, m.Reasoning)
	}
	if len(m.ReasoningDetails) > 0 {
		b = append(b, `,"reasoning_details":`...)
		if b, err = pijson.AppendRaw(b, m.ReasoningDetails); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// appendContent writes a message's content: a string, an array of
// parts, or null.
func appendContent(b []byte, content any) ([]byte, error) {
	switch c := content.(type) {
	case string:
		return pijson.AppendString(b, c), nil
	case []part:
		if c == nil {
			return append(b, "null"...), nil
		}
		b = append(b, '[')
		for i := range c {
			if i > 0 {
				b = append(b, ',')
			}
			b = c[i].appendJSON(b)
		}
		return append(b, ']'), nil
	case nil:
		return append(b, "null"...), nil
	}
	return pijson.AppendMarshal(b, content)
}

func (tc *toolCall) appendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"id":`...)
	b = pijson.AppendString(b, tc.ID)
	b = append(b, `,"type":`...)
	b = pijson.AppendString(b, tc.Type)
	b = append(b, `,"function":{"name":`...)
	b = pijson.AppendString(b, tc.Function.Name)
	b = append(b, `,"arguments":`...)
	b = pijson.AppendString(b, tc.Function.Arguments)
	b = append(b, '}')
	if len(tc.ExtraContent) > 0 {
		var err error
		b = append(b, `,"extra_content":`...)
		if b, err = pijson.AppendRaw(b, tc.ExtraContent); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

func (p *part) size() int {
	n := len(`{"type":,"text":,"image_url":{"url":}}`) + pijson.QuotedSize(p.Type) + pijson.QuotedSize(p.Text)
	if p.ImageURL != nil {
		n += pijson.QuotedSize(p.ImageURL.URL)
	}
	return n
}

func (p *part) appendJSON(b []byte) []byte {
	b = append(b, `{"type":`...)
	b = pijson.AppendString(b, p.Type)
	if p.Text != "" {
		b = append(b, `,"text":`...)
		b = pijson.AppendString(b, p.Text)
	}
	if p.ImageURL != nil {
		b = append(b, `,"image_url":{"url":`...)
		b = pijson.AppendString(b, p.ImageURL.URL)
		b = append(b, '}')
	}
	return append(b, '}')
}

func (t *tool) size() int {
	return len(`{"type":,"function":{"name":,"description":,"parameters":null}}`) + pijson.QuotedSize(t.Type) +
		pijson.QuotedSize(t.Function.Name) + pijson.QuotedSize(t.Function.Description) + len(t.Function.Parameters)
}

func (t *tool) appendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"type":`...)
	b = pijson.AppendString(b, t.Type)
	b = append(b, `,"function":{"name":`...)
	b = pijson.AppendString(b, t.Function.Name)
	if t.Function.Description != "" {
		b = append(b, `,"description":`...)
		b = pijson.AppendString(b, t.Function.Description)
	}
	b = append(b, `,"parameters":`...)
	b, err := pijson.AppendRaw(b, t.Function.Parameters)
	if err != nil {
		return nil, err
	}
	return append(b, "}}"...), nil
}
