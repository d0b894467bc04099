package session

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"gopi/pkg/ai"
)

// This file decodes ai.Message and ai.Content with the single-pass scanner.
// It mirrors ai.Message.UnmarshalJSON and ai.Content.UnmarshalJSON field by
// field (a differential fuzz test holds it to that); only the speed differs.

// member is one key of an object and its raw value.
type member struct {
	key string
	val []byte
}

// members splits one JSON object into its members, in file order. A value
// of null for the whole object yields no members and isNull.
// trusted says b was validated before (see scanner.trusted).
func members(b []byte, trusted bool) (ms []member, isNull bool, err error) {
	s := scanner{b: b, trusted: trusted}
	if s.peek() == 'n' {
		if err := s.literal("null"); err != nil {
			return nil, false, err
		}
		return nil, true, s.end()
	}
	if ms, err = s.membersAt(nil); err != nil {
		return nil, false, err
	}
	return ms, false, s.end()
}

// membersAt reads the object (or null) at the scanner's position into ms.
func (s *scanner) membersAt(ms []member) ([]member, error) {
	if s.peek() == 'n' {
		return ms, s.literal("null")
	}
	err := s.object(func(key []byte, esc bool) error {
		v, err := s.raw()
		if err != nil {
			return err
		}
		ms = append(ms, member{key: keyString(key, esc), val: v})
		return nil
	})
	return lastWins(ms), err
}

// lastWins drops all but the last member of each key, as encoding/json
// does when it decodes an object into a map.
func lastWins(ms []member) []member {
	if len(ms) <= 16 {
		return lastWinsSmall(ms)
	}
	seen := make(map[string]int, len(ms))
	out := ms[:0]
	for _, m := range ms {
		if i, ok := seen[m.key]; ok {
			out[i].val = m.val
			continue
		}
		seen[m.key] = len(out)
		out = append(out, m)
	}
	return out
}

func lastWinsSmall(ms []member) []member {
	out := ms[:0]
next:
	for _, m := range ms {
		for i := range out {
			if out[i].key == m.key {
				out[i].val = m.val
				continue next
			}
		}
		out = append(out, m)
	}
	return out
}

// knownKeyNames interns the keys of pi's JSON, so reading a session does
// not allocate a string per field.
var knownKeyNames = func() map[string]string {
	m := map[string]string{}
	for _, k := range []string{"type", "id", "parentId", "timestamp", "message", "role", "content", "text",
		"thinking", "thinkingSignature", "textSignature", "redacted", "data", "mimeType", "name", "arguments",
		"api", "provider", "model", "usage", "stopReason", "errorMessage", "toolCallId", "toolName", "details",
		"isError", "modelId", "thinkingLevel", "summary", "firstKeptEntryId", "tokensBefore", "fromHook",
		"fromId", "customType", "display", "targetId", "label", "input", "output", "cacheRead", "cacheWrite",
		"totalTokens", "cost", "total", "path"} {
		m[k] = k
	}
	return m
}()

func keyString(key []byte, esc bool) string {
	if !esc {
		if k, ok := knownKeyNames[string(key)]; ok {
			return k
		}
	}
	return unquote(key, esc)
}

func isNull(v []byte) bool { return string(v) == "null" }

// decodeString reads a JSON string value; null leaves dst unchanged.
func decodeString(k string, v []byte, dst *string) error {
	if isNull(v) {
		return nil
	}
	if len(v) < 2 || v[0] != '"' {
		return fmt.Errorf("field %s: not a string", k)
	}
	// v is one validated string token: its body needs no scanning.
	*dst = unquote(v[1:len(v)-1], true)
	return nil
}

func decodeBool(k string, v []byte, dst *bool) error {
	switch string(v) {
	case "null":
	case "true":
		*dst = true
	case "false":
		*dst = false
	default:
		return fmt.Errorf("field %s: not a boolean", k)
	}
	return nil
}

func decodeInt(k string, v []byte, dst *int64) error {
	if isNull(v) {
		return nil
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil {
		return fmt.Errorf("field %s: not an integer: %s", k, v)
	}
	*dst = n
	return nil
}

func addExtra(m *map[string]json.RawMessage, k string, v []byte) {
	if *m == nil {
		*m = make(map[string]json.RawMessage)
	}
	(*m)[k] = slices.Clone(v)
}

// decodeMessage mirrors ai.Message.UnmarshalJSON.
func decodeMessage(b []byte) (ai.Message, error) {
	s := scanner{b: b}
	if err := s.skip(0); err != nil {
		return ai.Message{}, fmt.Errorf("message: %w", err)
	}
	if err := s.end(); err != nil {
		return ai.Message{}, fmt.Errorf("message: %w", err)
	}
	return decodeValidMessage(b)
}

// decodeValidMessage decodes a message whose bytes were validated.
func decodeValidMessage(b []byte) (ai.Message, error) {
	var m ai.Message
	ms, _, err := members(b, true)
	if err != nil {
		return m, fmt.Errorf("message: %w", err)
	}
	for _, f := range ms {
		if err := messageField(&m, f); err != nil {
			return ai.Message{}, fmt.Errorf("message: %w", err)
		}
	}
	switch m.Role {
	case ai.RoleUser, ai.RoleAssistant, ai.RoleToolResult:
		return m, nil
	}
	// Other roles (pi's bashExecution, custom) keep every field but role
	// and content in Extra.
	m = ai.Message{Role: m.Role, Content: m.Content, ContentString: m.ContentString}
	for _, f := range ms {
		if f.key != "role" && f.key != "content" {
			addExtra(&m.Extra, f.key, f.val)
		}
	}
	return m, nil
}

// messageField decodes one member of a message into m.
func messageField(m *ai.Message, f member) error {
	k, v := f.key, f.val
	switch k {
	case "role":
		return decodeString(k, v, &m.Role)
	case "content":
		return decodeMessageContent(m, v)
	case "timestamp":
		return decodeInt(k, v, &m.Timestamp)
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
		return decodeBool(k, v, &m.IsError)
	}
	addExtra(&m.Extra, k, v)
	return nil
}

func decodeUsage(v []byte, u *ai.Usage) error {
	if isNull(v) {
		return nil
	}
	if err := json.Unmarshal(v, u); err != nil {
		return fmt.Errorf("field usage: %w", err)
	}
	return nil
}

// decodeMessageContent accepts a string (ContentString) or an array of blocks.
// Like ai, a null content counts as the empty string.
func decodeMessageContent(m *ai.Message, v []byte) error {
	m.Content, m.ContentString = nil, false
	if isNull(v) || v[0] == '"' {
		var s string
		if err := decodeString("content", v, &s); err != nil {
			return err
		}
		m.Content = []ai.Content{ai.TextContent(s)}
		m.ContentString = true
		return nil
	}
	blocks, err := decodeBlocks(v)
	if err != nil {
		return fmt.Errorf("field content: %w", err)
	}
	m.Content = blocks
	return nil
}

// decodeBlocks decodes a JSON array of content blocks.
func decodeBlocks(v []byte) ([]ai.Content, error) {
	if len(v) == 0 || v[0] != '[' {
		return nil, fmt.Errorf("not an array")
	}
	out := []ai.Content{}
	s := scanner{b: v, trusted: true}
	var ms []member
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

// decodeContent mirrors ai.Content.UnmarshalJSON on a block's members.
func decodeContent(ms []member) (ai.Content, error) {
	var c ai.Content
	for _, f := range ms {
		if err := contentField(&c, f); err != nil {
			return ai.Content{}, fmt.Errorf("content block: %w", err)
		}
	}
	switch c.Type {
	case ai.TypeText, ai.TypeThinking, ai.TypeImage, ai.TypeToolCall:
		return c, nil
	}
	// An unknown block keeps every field but type in Extra.
	c.Extra = nil
	for _, f := range ms {
		if f.key != "type" {
			addExtra(&c.Extra, f.key, f.val)
		}
	}
	return c, nil
}

func contentField(c *ai.Content, f member) error {
	k, v := f.key, f.val
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
		return decodeBool(k, v, &c.Redacted)
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
	addExtra(&c.Extra, k, v)
	return nil
}
