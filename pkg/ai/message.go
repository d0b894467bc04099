package ai

import (
	"encoding/json"
	"gopi/internal/pijson"
	"slices"
	"strings"
)

// Message roles gopi acts on. pi also writes "bashExecution" and "custom";
// those are read and written back unchanged (their fields live in Extra).
const (
	RoleUser       = "user"
	RoleAssistant  = "assistant"
	RoleToolResult = "toolResult"
)

// StopReason says why an assistant message ended.
type StopReason string

// The stop reasons of pi's assistant messages.
const (
	StopStop    StopReason = "stop"
	StopLength  StopReason = "length"
	StopToolUse StopReason = "toolUse"
	StopError   StopReason = "error"
	StopAborted StopReason = "aborted"
)

// Message is a user, assistant or toolResult message, JSON-compatible with
// pi's. Only the fields of its Role are meaningful; unknown fields are kept
// in Extra and written back unchanged.
type Message struct {
	Role      string
	Content   []Content
	Timestamp int64 // unix milliseconds

	// ContentString records that a user message's content arrived as a plain
	// JSON string (pi accepts both); it is written back the same way.
	ContentString bool

	// assistant
	API          string
	Provider     string
	Model        string
	Usage        Usage
	StopReason   StopReason
	ErrorMessage string

	// toolResult
	ToolCallID string
	ToolName   string
	Details    json.RawMessage
	IsError    bool

	Extra map[string]json.RawMessage
}

// UserText returns a user message with one text block.
func UserText(text string, ts int64) Message {
	return Message{Role: RoleUser, Content: []Content{TextContent(text)}, Timestamp: ts}
}

// Text joins the message's text blocks.
func (m *Message) Text() string {
	var parts []string
	for _, c := range m.Content {
		if c.Type == TypeText {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "")
}

// ToolCalls returns the message's toolCall blocks in order.
func (m *Message) ToolCalls() []Content {
	var calls []Content
	for _, c := range m.Content {
		if c.Type == TypeToolCall {
			calls = append(calls, c)
		}
	}
	return calls
}

// Clone returns a deep copy: nothing in it shares memory with m.
func (m Message) Clone() Message {
	if m.Content != nil {
		cs := make([]Content, len(m.Content))
		for i, c := range m.Content {
			cs[i] = c.Clone()
		}
		m.Content = cs
	}
	m.Details = slices.Clone(m.Details)
	m.Extra = pijson.CloneRawMap(m.Extra)
	if p := m.Usage.CacheWrite1h; p != nil {
		n := *p
		m.Usage.CacheWrite1h = &n
	}
	if p := m.Usage.Reasoning; p != nil {
		n := *p
		m.Usage.Reasoning = &n
	}
	if p := m.Usage.Cost.TotalFromProvider; p != nil {
		b := *p
		m.Usage.Cost.TotalFromProvider = &b
	}
	return m
}

// CloneMessages deep-copies a slice of messages. (Carving the copies'
// blocks from one slab made a resume slower, not faster: large fresh
// allocations fault their pages in, small ones reuse freed memory.)
func CloneMessages(ms []Message) []Message {
	if ms == nil {
		return nil
	}
	out := make([]Message, len(ms))
	for i, m := range ms {
		out[i] = m.Clone()
	}
	return out
}

var messageKeys = map[string]bool{
	"role": true, "content": true, "timestamp": true, "api": true,
	"provider": true, "model": true, "usage": true, "stopReason": true,
	"errorMessage": true, "toolCallId": true, "toolName": true,
	"details": true, "isError": true,
}

func isMessageKey(k string) bool { return messageKeys[k] }

func isRoleContentKey(k string) bool { return k == "role" || k == "content" }

// MarshalJSON writes the message in pi's field order.
func (m Message) MarshalJSON() ([]byte, error) {
	var w pijson.Object
	w.String("role", m.Role)
	switch m.Role {
	case RoleUser:
		m.writeContent(&w)
	case RoleAssistant:
		m.writeContent(&w)
		w.String("api", m.API)
		w.String("provider", m.Provider)
		w.String("model", m.Model)
		u, err := m.Usage.AppendJSON(nil)
		w.Fail("usage", err)
		w.Raw("usage", u)
		w.OptString("stopReason", string(m.StopReason)) // empty only in a partial message
		w.OptString("errorMessage", m.ErrorMessage)
	case RoleToolResult:
		w.String("toolCallId", m.ToolCallID)
		w.String("toolName", m.ToolName)
		m.writeContent(&w)
		if len(m.Details) > 0 {
			w.Raw("details", m.Details)
		}
		w.Bool("isError", m.IsError)
	default:
		// Other roles keep every field but content in Extra.
		if m.Content != nil {
			m.writeContent(&w)
		}
		w.Extra(m.Extra, isRoleContentKey)
		return w.Close()
	}
	if m.Timestamp != 0 || m.Role == RoleUser || m.Role == RoleAssistant || m.Role == RoleToolResult {
		w.Int("timestamp", m.Timestamp)
	}
	w.Extra(m.Extra, isMessageKey)
	return w.Close()
}

func (m *Message) writeContent(w *pijson.Object) {
	b, err := MarshalContent(m.Content, m.ContentString)
	w.Fail("content", err)
	w.Raw("content", b)
}

// MarshalContent writes content as Message.MarshalJSON writes a message's:
// an array of blocks (nil as []), or a plain string when asString and the
// content is one text block. It serves other JSON that holds pi content.
func MarshalContent(content []Content, asString bool) ([]byte, error) {
	if asString && len(content) == 1 && content[0].Type == TypeText {
		return pijson.AppendString(nil, content[0].Text), nil
	}
	if content == nil {
		content = []Content{}
	}
	return pijson.Marshal(content)
}

// UnmarshalJSON reads a message of any role; see DecodeMessage.
func (m *Message) UnmarshalJSON(b []byte) error {
	d, err := decodeUnchecked(b)
	if err != nil {
		return err
	}
	*m = d
	return nil
}
