package ai

import (
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
	c.Extra = CloneRawMap(c.Extra)
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
	ms, _, err := members(b, false)
	if err != nil {
		return fmt.Errorf("content block: %w", err)
	}
	d, err := decodeContent(ms)
	if err != nil {
		return err
	}
	*c = d
	return nil
}

// CloneRawMap deep-copies a map of raw JSON values (kept unknown fields).
func CloneRawMap(m map[string]json.RawMessage) map[string]json.RawMessage {
	if m == nil {
		return nil
	}
	out := make(map[string]json.RawMessage, len(m))
	for k, v := range m {
		out[k] = slices.Clone(v)
	}
	return out
}
