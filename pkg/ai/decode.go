package ai

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"gopi/internal/pijson"
)

// This file decodes Message and Content with pijson's single-pass scanner:
// it is what their UnmarshalJSON methods run. encoding/json re-scans nested raw
// values at every level, which made a 20 MB session take seconds to open.
// A differential fuzz test holds it to a straightforward decoding through
// maps of json.RawMessage.

// DecodeMessage decodes a validated message of any role, as
// Message.UnmarshalJSON does.
func DecodeMessage(v pijson.Raw) (Message, error) { return decodeMessage(pijson.RawFields(v)) }

// decodeUnchecked is Message.UnmarshalJSON: the common message is decoded
// while it is validated; anything else, once validated, by the general
// path.
func decodeUnchecked(b []byte) (Message, error) {
	s := pijson.NewScanner(b)
	if s.Peek() == '{' {
		start := s.Mark()
		m, ok, err := messageAt(&s)
		if err == nil {
			err = s.End()
		}
		if err == nil && ok {
			return m, nil
		}
		if err == nil {
			// Valid JSON: the general path need not check strings.
			return DecodeMessage(s.Since(start))
		}
	}
	return decodeMessage(pijson.Fields(b))
}

// decodeMessage is the general path: the object's members are split
// first, then decoded.
func decodeMessage(ms []pijson.Field, _ bool, err error) (Message, error) {
	var m Message
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
			pijson.AddExtra(&m.Extra, f.Key, f.Value)
		}
	}
	return m, nil
}

// messageField decodes one member of a message into m.
func messageField(m *Message, f pijson.Field) error {
	k, v := f.Key, f.Value
	switch k {
	case "role":
		return pijson.String(k, v, &m.Role)
	case "content":
		return m.decodeContent(v)
	case "timestamp":
		return pijson.Int(k, v, &m.Timestamp)
	case "api":
		return pijson.String(k, v, &m.API)
	case "provider":
		return pijson.String(k, v, &m.Provider)
	case "model":
		return pijson.String(k, v, &m.Model)
	case "usage":
		return decodeUsage(v, &m.Usage)
	case "stopReason":
		return pijson.String(k, v, (*string)(&m.StopReason))
	case "errorMessage":
		return pijson.String(k, v, &m.ErrorMessage)
	case "toolCallId":
		return pijson.String(k, v, &m.ToolCallID)
	case "toolName":
		return pijson.String(k, v, &m.ToolName)
	case "details":
		m.Details = nil
		if !pijson.IsNull(v) {
			m.Details = json.RawMessage(slices.Clone(v))
		}
		return nil
	case "isError":
		return pijson.Bool(k, v, &m.IsError)
	}
	pijson.AddExtra(&m.Extra, k, v)
	return nil
}

// decodeUsage reads a message's usage. pi's own shape (its keys, plain
// numbers) is read directly; anything else goes through encoding/json, so
// its rules (keys matched without case, errors) hold exactly.
func decodeUsage(v pijson.Raw, u *Usage) error {
	if pijson.IsNull(v) {
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
func usageFast(v pijson.Raw, u Usage) (Usage, bool) {
	s := pijson.ScanRaw(v)
	err := s.Object(func(key []byte, _ bool) error {
		val, err := s.Raw()
		if err != nil {
			return err
		}
		ok := true
		switch string(key) {
		case "cost":
			if !pijson.IsNull(val) {
				u.Cost, ok = costFast(val, u.Cost)
			}
		case "cacheWrite1h":
			var n int64
			if ok = parseIntInto(val, &n); ok && !pijson.IsNull(val) {
				u.CacheWrite1h = &n
			}
		case "reasoning":
			var n int64
			if ok = parseIntInto(val, &n); ok && !pijson.IsNull(val) {
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

func costFast(v pijson.Raw, c Cost) (Cost, bool) {
	s := pijson.ScanRaw(v)
	err := s.Object(func(key []byte, _ bool) error {
		val, err := s.Raw()
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
func parseIntInto(v pijson.Raw, dst *int64) bool {
	if pijson.IsNull(v) {
		return true
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil {
		return false
	}
	*dst = n
	return true
}

func parseFloatInto(v pijson.Raw, dst *float64) bool {
	if pijson.IsNull(v) {
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

func (m *Message) decodeContent(v pijson.Raw) error {
	blocks, isString, err := DecodeContent(v)
	if err != nil {
		return fmt.Errorf("field content: %w", err)
	}
	m.Content, m.ContentString = blocks, isString
	return nil
}

// DecodeContent decodes a validated message content as
// Message.UnmarshalJSON does: an array of blocks, or a string, which
// becomes one text block and isString. Like pi, a null content counts as
// the empty string.
func DecodeContent(v pijson.Raw) (blocks []Content, isString bool, err error) {
	if pijson.IsNull(v) {
		return []Content{TextContent("")}, true, nil
	}
	if len(v) > 0 && v[0] == '"' {
		return []Content{TextContent(pijson.RawString(v))}, true, nil
	}
	if len(v) == 0 || v[0] != '[' {
		return nil, false, fmt.Errorf("not an array")
	}
	s := pijson.ScanRaw(v)
	blocks, err = blocksAt(&s)
	return blocks, false, err
}

// blocksAt decodes the array of content blocks at the scanner's position.
func blocksAt(s *pijson.Scanner) ([]Content, error) {
	out := []Content{}
	err := s.EachObject("content block", func(ms []pijson.Field) error {
		c, err := decodeContent(ms)
		if err != nil {
			return err
		}
		out = append(out, c)
		return nil
	})
	return out, err
}

// blocksFast decodes the array of content blocks at the position of an
// untrusted scanner while it validates it: a block's plain strings (its
// text) are not scanned a second time. An error leaves the decision to
// the general path, as in messageAt.
func blocksFast(s *pijson.Scanner) ([]Content, error) {
	out := []Content{}
	err := s.Array(func() error {
		if s.Peek() != '{' {
			// null, or an error: as blocksAt reads it.
			ms, err := s.Members(nil)
			if err != nil {
				return fmt.Errorf("content block: %w", err)
			}
			c, err := decodeContent(ms)
			out = append(out, c)
			return err
		}
		start := s.Mark()
		c, ok, err := blockAt(s)
		if err != nil {
			return err
		}
		if !ok {
			ms, _, err := pijson.RawFields(s.Since(start))
			if err == nil {
				c, err = decodeContent(ms)
			}
			if err != nil {
				return err
			}
		}
		out = append(out, c)
		return nil
	})
	return out, err
}

// blockAt decodes the block object at the scanner's position; ok false
// says the general decoding of its members must decide (a key given twice,
// a type whose fields go to Extra).
func blockAt(s *pijson.Scanner) (c Content, ok bool, err error) {
	var keys [8]string
	seen, ok := keys[:0], true
	err = s.Object(func(key []byte, esc bool) error {
		k := pijson.Key(key, esc)
		if slices.Contains(seen, k) {
			ok = false
		}
		seen = append(seen, k)
		v, plain, err := s.Value()
		if err != nil {
			return err
		}
		if dst := c.stringField(k); plain && dst != nil {
			*dst = pijson.PlainString(v)
			return nil
		}
		if err := contentField(&c, pijson.Field{Key: k, Value: v}); err != nil {
			return fmt.Errorf("content block: %w", err)
		}
		return nil
	})
	switch c.Type {
	case TypeText, TypeThinking, TypeImage, TypeToolCall:
	default:
		ok = false
	}
	return c, ok, err
}

// stringField is the block's string field under key k, nil for others.
func (c *Content) stringField(k string) *string {
	switch k {
	case "type":
		return &c.Type
	case "text":
		return &c.Text
	case "textSignature":
		return &c.TextSignature
	case "thinking":
		return &c.Thinking
	case "thinkingSignature":
		return &c.ThinkingSignature
	case "data":
		return &c.Data
	case "mimeType":
		return &c.MimeType
	case "id":
		return &c.ID
	case "name":
		return &c.Name
	}
	return nil
}

// decodeContent decodes a block from its members, as Content.UnmarshalJSON does.
func decodeContent(ms []pijson.Field) (Content, error) {
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
			pijson.AddExtra(&c.Extra, f.Key, f.Value)
		}
	}
	return c, nil
}

func contentField(c *Content, f pijson.Field) error {
	k, v := f.Key, f.Value
	switch k {
	case "type":
		return pijson.String(k, v, &c.Type)
	case "text":
		return pijson.String(k, v, &c.Text)
	case "textSignature":
		return pijson.String(k, v, &c.TextSignature)
	case "thinking":
		return pijson.String(k, v, &c.Thinking)
	case "thinkingSignature":
		return pijson.String(k, v, &c.ThinkingSignature)
	case "redacted":
		return pijson.Bool(k, v, &c.Redacted)
	case "data":
		return pijson.String(k, v, &c.Data)
	case "mimeType":
		return pijson.String(k, v, &c.MimeType)
	case "id":
		return pijson.String(k, v, &c.ID)
	case "name":
		return pijson.String(k, v, &c.Name)
	case "arguments":
		c.Arguments = json.RawMessage(slices.Clone(v))
		return nil
	}
	pijson.AddExtra(&c.Extra, k, v)
	return nil
}
