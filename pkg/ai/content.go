package ai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
)

// Content block types, as pi names them.
const (
	TypeText     = "text"
	TypeThinking = "thinking"
	TypeImage    = "image"
	TypeToolCall = "toolCall"
)

// Content is one block of a message: text, thinking, image or toolCall.
// Only the fields of its Type are meaningful. Fields gopi does not know are
// kept in Extra and written back unchanged.
type Content struct {
	Type string

	Text          string // text
	TextSignature string // text (some providers sign text blocks)

	Thinking          string // thinking
	ThinkingSignature string // thinking: replayed to the provider
	// Redacted marks thinking the provider encrypted: as pi stores it, the
	// opaque data is in ThinkingSignature and Thinking is a placeholder.
	Redacted bool

	Data     string // image: base64
	MimeType string // image

	ID        string          // toolCall
	Name      string          // toolCall
	Arguments json.RawMessage // toolCall: a JSON object

	Extra map[string]json.RawMessage
}

// TextContent returns a text block.
func TextContent(s string) Content { return Content{Type: TypeText, Text: s} }

// ImageContent returns an image block of base64 data.
func ImageContent(data, mimeType string) Content {
	return Content{Type: TypeImage, Data: data, MimeType: mimeType}
}

// ToolCallContent returns a toolCall block; nil arguments become {}.
func ToolCallContent(id, name string, args json.RawMessage) Content {
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	return Content{Type: TypeToolCall, ID: id, Name: name, Arguments: args}
}

// Clone returns a deep copy.
func (c Content) Clone() Content {
	c.Arguments = slices.Clone(c.Arguments)
	c.Extra = cloneRawMap(c.Extra)
	return c
}

var contentKeys = map[string]bool{
	"type": true, "text": true, "textSignature": true, "thinking": true,
	"thinkingSignature": true, "redacted": true, "data": true, "mimeType": true,
	"id": true, "name": true, "arguments": true,
}

var typeKey = map[string]bool{"type": true}

// MarshalJSON writes the block in pi's shape: type first, then the fields
// of its type, then unknown fields in sorted order.
func (c Content) MarshalJSON() ([]byte, error) {
	var w objWriter
	w.str("type", c.Type)
	switch c.Type {
	case TypeText:
		w.str("text", c.Text)
		w.optStr("textSignature", c.TextSignature)
	case TypeThinking:
		w.str("thinking", c.Thinking)
		w.optStr("thinkingSignature", c.ThinkingSignature)
		if c.Redacted {
			w.raw("redacted", []byte("true"))
		}
	case TypeImage:
		w.str("data", c.Data)
		w.str("mimeType", c.MimeType)
	case TypeToolCall:
		w.str("id", c.ID)
		w.str("name", c.Name)
		args := c.Arguments
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		w.raw("arguments", args)
	default:
		// An unknown block keeps every field in Extra.
		w.extra(c.Extra, typeKey)
		return w.close()
	}
	w.extra(c.Extra, contentKeys)
	return w.close()
}

// UnmarshalJSON reads any block; unknown fields land in Extra.
func (c *Content) UnmarshalJSON(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("content block: %w", err)
	}
	*c = Content{}
	r := fieldReader{m: m}
	r.str("type", &c.Type)
	r.str("text", &c.Text)
	r.str("textSignature", &c.TextSignature)
	r.str("thinking", &c.Thinking)
	r.str("thinkingSignature", &c.ThinkingSignature)
	r.boolean("redacted", &c.Redacted)
	r.str("data", &c.Data)
	r.str("mimeType", &c.MimeType)
	r.str("id", &c.ID)
	r.str("name", &c.Name)
	if a, ok := m["arguments"]; ok {
		c.Arguments = slices.Clone(a)
	}
	if r.err != nil {
		return fmt.Errorf("content block: %w", r.err)
	}
	switch c.Type {
	case TypeText, TypeThinking, TypeImage, TypeToolCall:
		c.Extra = extraFields(m, contentKeys)
	default:
		c.Extra = extraFields(m, typeKey)
	}
	return nil
}

// objWriter writes one JSON object field by field, in a fixed order.
type objWriter struct {
	buf bytes.Buffer
	err error
}

func (w *objWriter) key(k string) {
	if w.buf.Len() == 0 {
		w.buf.WriteByte('{')
	} else {
		w.buf.WriteByte(',')
	}
	kb, _ := json.Marshal(k)
	w.buf.Write(kb)
	w.buf.WriteByte(':')
}

func (w *objWriter) raw(k string, v []byte) {
	w.key(k)
	w.buf.Write(v)
}

func (w *objWriter) value(k string, v any) {
	b, err := json.Marshal(v)
	if err != nil && w.err == nil {
		w.err = fmt.Errorf("field %s: %w", k, err)
	}
	w.raw(k, b)
}

func (w *objWriter) str(k, v string) { w.value(k, v) }

func (w *objWriter) optStr(k, v string) {
	if v != "" {
		w.value(k, v)
	}
}

func (w *objWriter) extra(m map[string]json.RawMessage, known map[string]bool) {
	keys := make([]string, 0, len(m))
	for k := range m {
		if !known[k] {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		w.raw(k, m[k])
	}
}

func (w *objWriter) close() ([]byte, error) {
	if w.err != nil {
		return nil, w.err
	}
	if w.buf.Len() == 0 {
		return []byte("{}"), nil
	}
	w.buf.WriteByte('}')
	return w.buf.Bytes(), nil
}

// fieldReader pulls typed fields out of a decoded object, keeping the first error.
type fieldReader struct {
	m   map[string]json.RawMessage
	err error
}

func (r *fieldReader) into(k string, dst any) {
	v, ok := r.m[k]
	if !ok || r.err != nil || string(v) == "null" {
		return
	}
	if err := json.Unmarshal(v, dst); err != nil {
		r.err = fmt.Errorf("field %s: %w", k, err)
	}
}

func (r *fieldReader) str(k string, dst *string)     { r.into(k, dst) }
func (r *fieldReader) boolean(k string, dst *bool)   { r.into(k, dst) }
func (r *fieldReader) integer(k string, dst *int64)  { r.into(k, dst) }
func (r *fieldReader) number(k string, dst *float64) { r.into(k, dst) }
func (r *fieldReader) has(k string) (json.RawMessage, bool) {
	v, ok := r.m[k]
	return v, ok
}

func extraFields(m map[string]json.RawMessage, known map[string]bool) map[string]json.RawMessage {
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

func cloneRawMap(m map[string]json.RawMessage) map[string]json.RawMessage {
	if m == nil {
		return nil
	}
	out := make(map[string]json.RawMessage, len(m))
	for k, v := range m {
		out[k] = slices.Clone(v)
	}
	return out
}
