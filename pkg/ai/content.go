package ai

import (
	"encoding/json"
	"fmt"
	"gopi/internal/pijson"
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
	c.Extra = pijson.CloneRawMap(c.Extra)
	return c
}

var contentKeys = map[string]bool{
	"type": true, "text": true, "textSignature": true, "thinking": true,
	"thinkingSignature": true, "redacted": true, "data": true, "mimeType": true,
	"id": true, "name": true, "arguments": true,
}

func isContentKey(k string) bool { return contentKeys[k] }

func isTypeKey(k string) bool { return k == "type" }

// MarshalJSON writes the block in pi's shape: type first, then the fields
// of its type, then unknown fields in sorted order.
func (c Content) MarshalJSON() ([]byte, error) {
	var w pijson.Object
	w.String("type", c.Type)
	switch c.Type {
	case TypeText:
		w.String("text", c.Text)
		w.OptString("textSignature", c.TextSignature)
	case TypeThinking:
		w.String("thinking", c.Thinking)
		w.OptString("thinkingSignature", c.ThinkingSignature)
		if c.Redacted {
			w.Raw("redacted", []byte("true"))
		}
	case TypeImage:
		w.String("data", c.Data)
		w.String("mimeType", c.MimeType)
	case TypeToolCall:
		w.String("id", c.ID)
		w.String("name", c.Name)
		args := c.Arguments
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		w.Raw("arguments", args)
	default:
		// An unknown block keeps every field in Extra.
		w.Extra(c.Extra, isTypeKey)
		return w.Close()
	}
	w.Extra(c.Extra, isContentKey)
	return w.Close()
}

// UnmarshalJSON reads any block; unknown fields land in Extra.
func (c *Content) UnmarshalJSON(b []byte) error {
	ms, _, err := pijson.Fields(b)
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
