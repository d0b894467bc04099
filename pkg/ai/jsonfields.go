package ai

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
)

// This file splits objects into fields and decodes scalar values, for
// decode.go and for readers of JSON that embeds messages (session files).

// Field is one member of a JSON object.
type Field struct {
	Key   string // decoded
	Value []byte // raw JSON; shares memory with the object's bytes
}

// ObjectFields splits the JSON object b into its fields in order,
// validating all of b as strictly as encoding/json does. Of a key given
// more than once only the last value counts, as when encoding/json decodes
// into a map. A JSON null yields no fields and null true.
func ObjectFields(b []byte) (fields []Field, null bool, err error) {
	return members(b, false)
}

// members is ObjectFields; trusted says b was validated before (see
// scanner.trusted).
func members(b []byte, trusted bool) (ms []Field, isNull bool, err error) {
	s := scanner{b: b, trusted: trusted}
	if s.peek() == 'n' {
		if err := s.literal("null"); err != nil {
			return nil, false, err
		}
		return nil, true, s.end()
	}
	// Room for a message's or an entry's fields: one allocation, not four.
	if ms, err = s.membersAt(make([]Field, 0, 10)); err != nil {
		return nil, false, err
	}
	return ms, false, s.end()
}

// membersAt reads the object (or null) at the scanner's position into ms.
func (s *scanner) membersAt(ms []Field) ([]Field, error) {
	if s.peek() == 'n' {
		return ms, s.literal("null")
	}
	err := s.object(func(key []byte, esc bool) error {
		v, err := s.raw()
		if err != nil {
			return err
		}
		ms = append(ms, Field{Key: keyString(key, esc), Value: v})
		return nil
	})
	return lastWins(ms), err
}

// lastWins drops all but the last member of each key, as encoding/json
// does when it decodes an object into a map.
func lastWins(ms []Field) []Field {
	if len(ms) <= 16 {
		return lastWinsSmall(ms)
	}
	seen := make(map[string]int, len(ms))
	out := ms[:0]
	for _, m := range ms {
		if i, ok := seen[m.Key]; ok {
			out[i].Value = m.Value
			continue
		}
		seen[m.Key] = len(out)
		out = append(out, m)
	}
	return out
}

func lastWinsSmall(ms []Field) []Field {
	out := ms[:0]
next:
	for _, m := range ms {
		for i := range out {
			if out[i].Key == m.Key {
				out[i].Value = m.Value
				continue next
			}
		}
		out = append(out, m)
	}
	return out
}

// knownKeyNames interns the keys of messages and blocks, so decoding them
// does not allocate a string per field.
var knownKeyNames = func() map[string]string {
	m := map[string]string{}
	for _, k := range []string{"type", "id", "timestamp", "role", "content", "text", "thinking",
		"thinkingSignature", "textSignature", "redacted", "data", "mimeType", "name", "arguments",
		"api", "provider", "model", "usage", "stopReason", "errorMessage", "toolCallId", "toolName",
		"details", "isError"} {
		m[k] = k
	}
	return m
}()

// keyString decodes a key. Raw bytes equal to a known name decode to that
// name whatever esc says (a trusted scan always says esc).
func keyString(key []byte, esc bool) string {
	if k, ok := knownKeyNames[string(key)]; ok {
		return k
	}
	return unquote(key, esc)
}

func isNull(v []byte) bool { return string(v) == "null" }

// decodeString reads a validated JSON string value; null leaves dst unchanged.
func decodeString(k string, v []byte, dst *string) error {
	if isNull(v) {
		return nil
	}
	if len(v) < 2 || v[0] != '"' {
		return fmt.Errorf("field %s: not a string", k)
	}
	*dst = unquoteToken(v)
	return nil
}

// DecodeBool reads a JSON boolean field value; null leaves dst unchanged.
func DecodeBool(k string, v []byte, dst *bool) error {
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

// DecodeInt reads a JSON integer field value; null leaves dst unchanged.
func DecodeInt(k string, v []byte, dst *int64) error {
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

// AddExtra keeps an unknown field's raw value (copied) in *m.
func AddExtra(m *map[string]json.RawMessage, k string, v []byte) {
	if *m == nil {
		*m = make(map[string]json.RawMessage)
	}
	(*m)[k] = slices.Clone(v)
}

// validate checks that b is exactly one JSON value.
func validate(b []byte) error {
	s := scanner{b: b}
	if err := s.skip(); err != nil {
		return err
	}
	return s.end()
}
