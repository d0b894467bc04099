package ai

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
)

// This file decodes Message and Content with the single-pass scanner: it is
// what their UnmarshalJSON methods run. encoding/json re-scans nested raw
// values at every level, which made a 20 MB session take seconds to open.
// A differential fuzz test holds it to a straightforward decoding through
// maps of json.RawMessage.

// DecodeMessage decodes a message of any role, as Message.UnmarshalJSON
// does. trusted says b was validated before (for instance, it is a Field's
// Value), which lets the scanner skip through strings without checking them.
func DecodeMessage(b []byte, trusted bool) (Message, error) {
	if !trusted {
		s := scanner{b: b}
		if s.peek() == '{' {
			start := s.i
			m, ok, err := s.messageAt()
			if err == nil {
				err = s.end()
			}
			if err == nil && ok {
				return m, nil
			}
			if err == nil {
				// Valid JSON: the general path need not check strings.
				return decodeMessage(b[start:s.i], true)
			}
		}
	}
	return decodeMessage(b, trusted)
}

// decodeMessage is DecodeMessage's general path: the object's members are
// split first, then decoded.
func decodeMessage(b []byte, trusted bool) (Message, error) {
	var m Message
	ms, _, err := members(b, trusted)
	if err != nil {
		return m, fmt.Errorf("message: %w", err)
	}
	for _, f := range ms {
		if err := messageField(&m, f); err != nil {
			return Message{}, fmt.Errorf("message: %w", err)
		}
	}
	switch m.Role {
	case RoleUser, RoleAssistant, RoleToolResult:
		return m, nil
	}
	// Other roles (pi's bashExecution, custom) keep every field but role
	// and content in Extra.
	m = Message{Role: m.Role, Content: m.Content, ContentString: m.ContentString}
	for _, f := range ms {
		if f.Key != "role" && f.Key != "content" {
			AddExtra(&m.Extra, f.Key, f.Value)
		}
	}
	return m, nil
}

// messageField decodes one member of a message into m.
func messageField(m *Message, f Field) error {
	k, v := f.Key, f.Value
	switch k {
	case "role":
		return decodeString(k, v, &m.Role)
	case "content":
		return m.decodeContent(v)
	case "timestamp":
		return DecodeInt(k, v, &m.Timestamp)
	case "api":
		return decodeString(k, v, &m.API)
	case "provider":
		return decodeString(k, v, &m.Provider)
	case "model":
		return decodeString(k, v, &m.Model)
	case "usage":
		return decodeUsage(v, &m.Usage)
	case "stopReason":
		return decodeString(k, v, (*string)(&m.StopReason))
	case "errorMessage":
		return decodeString(k, v, &m.ErrorMessage)
	case "toolCallId":
		return decodeString(k, v, &m.ToolCallID)
	case "toolName":
		return decodeString(k, v, &m.ToolName)
	case "details":
		m.Details = nil
		if !isNull(v) {
			m.Details = slices.Clone(v)
		}
		return nil
	case "isError":
		return DecodeBool(k, v, &m.IsError)
	}
	AddExtra(&m.Extra, k, v)
	return nil
}

// decodeUsage reads a message's usage. pi's own shape (its keys, plain
// numbers) is read directly; anything else goes through encoding/json, so
// its rules (keys matched without case, errors) hold exactly.
func decodeUsage(v []byte, u *Usage) error {
	if isNull(v) {
		return nil
	}
	if fast, ok := usageFast(v, *u); ok {
		*u = fast
		return nil
	}
	if err := json.Unmarshal(v, u); err != nil {
		return fmt.Errorf("field usage: %w", err)
	}
	return nil
}

// usageFast decodes a validated usage object of pi's shape onto u; ok is
// false when v is anything else. Keys are matched on their raw bytes: an
// escaped key matches none and falls back.
func usageFast(v []byte, u Usage) (Usage, bool) {
	s := scanner{b: v, trusted: true}
	err := s.object(func(key []byte, _ bool) error {
		val, err := s.raw()
		if err != nil {
			return err
		}
		ok := true
		switch string(key) {
		case "cost":
			if !isNull(val) {
				u.Cost, ok = costFast(val, u.Cost)
			}
		case "cacheWrite1h":
			var n int64
			if ok = parseIntInto(val, &n); ok && !isNull(val) {
				u.CacheWrite1h = &n
			}
		case "reasoning":
			var n int64
			if ok = parseIntInto(val, &n); ok && !isNull(val) {
				u.Reasoning = &n
			}
		default:
			dst := u.intField(key)
			ok = dst != nil && parseIntInto(val, dst)
		}
		if !ok {
			return errNotFast
		}
		return nil
	})
	return u, err == nil
}

// errNotFast stops a fast path that must give way to encoding/json.
var errNotFast = errors.New("not the fast path's shape")

func costFast(v []byte, c Cost) (Cost, bool) {
	s := scanner{b: v, trusted: true}
	err := s.object(func(key []byte, _ bool) error {
		val, err := s.raw()
		if err == nil && string(key) == "totalFromProvider" {
			switch string(val) {
			case "true", "false":
				b := string(val) == "true"
				c.TotalFromProvider = &b
				return nil
			}
			return errNotFast
		}
		dst := c.field(key)
		if err != nil || dst == nil || !parseFloatInto(val, dst) {
			return errNotFast
		}
		return nil
	})
	return c, err == nil
}

func (u *Usage) intField(key []byte) *int64 {
	switch string(key) {
	case "input":
		return &u.Input
	case "output":
		return &u.Output
	case "cacheRead":
		return &u.CacheRead
	case "cacheWrite":
		return &u.CacheWrite
	case "totalTokens":
		return &u.TotalTokens
	}
	return nil
}

func (c *Cost) field(key []byte) *float64 {
	switch string(key) {
	case "input":
		return &c.Input
	case "output":
		return &c.Output
	case "cacheRead":
		return &c.CacheRead
	case "cacheWrite":
		return &c.CacheWrite
	case "total":
		return &c.Total
	}
	return nil
}

// parseIntInto stores a JSON integer; null leaves dst as it is, as
// encoding/json does.
func parseIntInto(v []byte, dst *int64) bool {
	if isNull(v) {
		return true
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil {
		return false
	}
	*dst = n
	return true
}

func parseFloatInto(v []byte, dst *float64) bool {
	if isNull(v) {
		return true
	}
	if len(v) == 0 || (v[0] != '-' && (v[0] < '0' || v[0] > '9')) {
		return false
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil {
		return false
	}
	*dst = f
	return true
}

func (m *Message) decodeContent(v []byte) error {
	blocks, isString, err := decodeContentValue(v)
	if err != nil {
		return fmt.Errorf("field content: %w", err)
	}
	m.Content, m.ContentString = blocks, isString
	return nil
}

// DecodeContent decodes a message's content as Message.UnmarshalJSON does:
// an array of blocks, or a string, which becomes one text block and
// isString. Like pi, a null content counts as the empty string. trusted
// says v was validated before.
func DecodeContent(v []byte, trusted bool) (blocks []Content, isString bool, err error) {
	if !trusted {
		if err := validate(v); err != nil {
			return nil, false, err
		}
	}
	return decodeContentValue(v)
}

// decodeContentValue is DecodeContent of a validated value.
func decodeContentValue(v []byte) ([]Content, bool, error) {
	if isNull(v) {
		return []Content{TextContent("")}, true, nil
	}
	if v[0] == '"' {
		return []Content{TextContent(unquoteToken(v))}, true, nil
	}
	blocks, err := decodeBlocks(v)
	return blocks, false, err
}

// decodeBlocks decodes a validated JSON array of content blocks.
func decodeBlocks(v []byte) ([]Content, error) {
	if len(v) == 0 || v[0] != '[' {
		return nil, fmt.Errorf("not an array")
	}
	s := scanner{b: v, trusted: true}
	return s.blocksAt()
}

// blocksAt decodes the array of content blocks at the scanner's position.
func (s *scanner) blocksAt() ([]Content, error) {
	out := []Content{}
	var ms []Field
	if s.sc != nil {
		ms = s.sc.members[:0]
		defer func() { s.sc.members = ms[:0] }()
	}
	err := s.array(func() error {
		var err error
		if ms, err = s.membersAt(ms[:0]); err != nil {
			return fmt.Errorf("content block: %w", err)
		}
		c, err := decodeContent(ms)
		if err != nil {
			return err
		}
		out = append(out, c)
		return nil
	})
	return out, err
}

// decodeContent decodes a block from its members, as Content.UnmarshalJSON does.
func decodeContent(ms []Field) (Content, error) {
	var c Content
	for _, f := range ms {
		if err := contentField(&c, f); err != nil {
			return Content{}, fmt.Errorf("content block: %w", err)
		}
	}
	switch c.Type {
	case TypeText, TypeThinking, TypeImage, TypeToolCall:
		return c, nil
	}
	// An unknown block keeps every field but type in Extra.
	c.Extra = nil
	for _, f := range ms {
		if f.Key != "type" {
			AddExtra(&c.Extra, f.Key, f.Value)
		}
	}
	return c, nil
}

func contentField(c *Content, f Field) error {
	k, v := f.Key, f.Value
	switch k {
	case "type":
		return decodeString(k, v, &c.Type)
	case "text":
		return decodeString(k, v, &c.Text)
	case "textSignature":
		return decodeString(k, v, &c.TextSignature)
	case "thinking":
		return decodeString(k, v, &c.Thinking)
	case "thinkingSignature":
		return decodeString(k, v, &c.ThinkingSignature)
	case "redacted":
		return DecodeBool(k, v, &c.Redacted)
	case "data":
		return decodeString(k, v, &c.Data)
	case "mimeType":
		return decodeString(k, v, &c.MimeType)
	case "id":
		return decodeString(k, v, &c.ID)
	case "name":
		return decodeString(k, v, &c.Name)
	case "arguments":
		c.Arguments = slices.Clone(v)
		return nil
	}
	AddExtra(&c.Extra, k, v)
	return nil
}
