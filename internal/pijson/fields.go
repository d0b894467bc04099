package pijson

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
)

// This file splits objects into fields and decodes scalar values, for
// pkg/ai's message codecs and for readers of JSON that embeds messages
// (session files).

// Raw is exactly one JSON value, validated: a Field's Value, what Validate
// returned, or what a Scanner read. Reading it again skips the checks.
// Converting unvalidated bytes to Raw breaks that promise.
type Raw []byte

// Validate checks that b is exactly one JSON value (surrounding white
// space allowed), as encoding/json checks it.
func Validate(b []byte) (Raw, error) {
	s := Scanner{b: b}
	if err := s.skip(); err != nil {
		return nil, err
	}
	return b, s.End()
}

// Field is one member of a JSON object.
type Field struct {
	Key   string // decoded
	Value Raw    // shares memory with the object's bytes
}

// Fields splits the JSON object b into its fields in order, validating
// all of b as strictly as encoding/json does. Of a key given more than
// once only the last value counts, as when encoding/json decodes into a
// map. A JSON null yields no fields and null true.
func Fields(b []byte) (fields []Field, null bool, err error) {
	return members(Scanner{b: b})
}

// RawFields is Fields of a validated object (or null).
func RawFields(v Raw) (fields []Field, null bool, err error) {
	return members(ScanRaw(v))
}

func members(s Scanner) (ms []Field, isNull bool, err error) {
	if s.Peek() == 'n' {
		if err := s.literal("null"); err != nil {
			return nil, false, err
		}
		return nil, true, s.End()
	}
	// Room for a message's or an entry's fields: one allocation, not four.
	if ms, err = s.Members(make([]Field, 0, 10)); err != nil {
		return nil, false, err
	}
	return ms, false, s.End()
}

// Members reads the object (or null) at the scanner's position, appending
// its fields to ms (last key wins).
func (s *Scanner) Members(ms []Field) ([]Field, error) {
	if s.Peek() == 'n' {
		return ms, s.literal("null")
	}
	err := s.Object(func(key []byte, esc bool) error {
		v, err := s.Raw()
		if err != nil {
			return err
		}
		ms = append(ms, Field{Key: Key(key, esc), Value: v})
		return nil
	})
	return lastWins(ms), err
}

// Scratch is working memory for FieldsWith, so that decoding many lines
// does not allocate a field list for each line and nested object. One
// per goroutine.
type Scratch struct {
	fields, members []Field
	// scan is FieldsWith's Scanner: at, a function value, gets a pointer
	// to it, which would move a Scanner of its own to the heap each call.
	scan Scanner
}

// FieldsWith is Fields for an object (not null) whose value under key is
// read by at, which must consume it (a null among others), so a codec can
// decode it while it is validated instead of reading it twice. sc, when
// not nil, is reused: the fields returned live in it, valid until the
// next call with sc, and the Scanner handed to at carries it (EachObject).
func FieldsWith(b []byte, sc *Scratch, key string, at func(s *Scanner) error) ([]Field, error) {
	if sc == nil {
		sc = &Scratch{fields: make([]Field, 0, 10)}
	}
	s := &sc.scan
	*s = Scanner{b: b, sc: sc}
	ms := sc.fields[:0]
	defer func() { sc.fields = ms[:0] }()
	err := s.Object(func(raw []byte, esc bool) error {
		k := Key(raw, esc)
		start := s.i
		var err error
		if k == key {
			err = at(s)
		} else {
			_, err = s.Raw()
		}
		if err != nil {
			return err
		}
		ms = append(ms, Field{Key: k, Value: b[start:s.i]})
		return nil
	})
	if err == nil {
		err = s.End()
	}
	if err != nil {
		return nil, err
	}
	return lastWins(ms), nil
}

// EachObject reads the array at the scanner's position, handing each
// element's fields (an object, or none for null) to each. The fields are
// valid until each returns (they live in the Scratch, if any). An element
// that is not an object is an error prefixed with what.
func (s *Scanner) EachObject(what string, each func(fields []Field) error) error {
	var ms []Field
	if s.sc != nil {
		ms = s.sc.members[:0]
		defer func() { s.sc.members = ms[:0] }()
	}
	return s.Array(func() error {
		var err error
		if ms, err = s.Members(ms[:0]); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		return each(ms)
	})
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

// Key decodes a key as Object hands it over. Raw bytes equal to a common
// name of pi's JSON decode to that name whatever esc says (a validated
// value's scan always says esc), without allocating a string per field.
func Key(key []byte, esc bool) string {
	if k := knownKey(key); k != "" {
		return k
	}
	return unquote(key, esc)
}

// knownKey returns the constant equal to key among the keys of messages
// and blocks, or "".
func knownKey(key []byte) string {
	switch string(key) {
	case "type":
		return "type"
	case "id":
		return "id"
	case "timestamp":
		return "timestamp"
	case "role":
		return "role"
	case "content":
		return "content"
	case "text":
		return "text"
	case "thinking":
		return "thinking"
	case "thinkingSignature":
		return "thinkingSignature"
	case "textSignature":
		return "textSignature"
	case "redacted":
		return "redacted"
	case "data":
		return "data"
	case "mimeType":
		return "mimeType"
	case "name":
		return "name"
	case "arguments":
		return "arguments"
	case "api":
		return "api"
	case "provider":
		return "provider"
	case "model":
		return "model"
	case "usage":
		return "usage"
	case "stopReason":
		return "stopReason"
	case "errorMessage":
		return "errorMessage"
	case "toolCallId":
		return "toolCallId"
	case "toolName":
		return "toolName"
	case "details":
		return "details"
	case "isError":
		return "isError"
	case "parentId":
		return "parentId"
	case "message":
		return "message"
	}
	return ""
}

// IsNull reports whether v is JSON's null.
func IsNull(v Raw) bool { return string(v) == "null" }

// String reads a JSON string field value; null leaves dst unchanged.
// k names the field in the error.
func String(k string, v Raw, dst *string) error {
	if IsNull(v) {
		return nil
	}
	if len(v) < 2 || v[0] != '"' {
		return fmt.Errorf("field %s: not a string", k)
	}
	*dst = RawString(v)
	return nil
}

// Bool reads a JSON boolean field value; null leaves dst unchanged.
func Bool(k string, v Raw, dst *bool) error {
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

// Int reads a JSON integer field value; null leaves dst unchanged.
func Int(k string, v Raw, dst *int64) error {
	if IsNull(v) {
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
