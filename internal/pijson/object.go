package pijson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
)

// Object writes one JSON object field by field, in the order the fields
// are given, with strings quoted as JSON.stringify quotes them (no HTML
// escapes), so what gopi writes matches pi's bytes. The zero value is an
// empty object.
type Object struct {
	b   []byte
	err error
}

// Key writes the key of the next field; its value follows.
func (w *Object) Key(k string) {
	if len(w.b) == 0 {
		w.b = append(w.b, '{')
	} else {
		w.b = append(w.b, ',')
	}
	w.b = AppendString(w.b, k)
	w.b = append(w.b, ':')
}

// Raw writes v, which must be JSON, as it is.
func (w *Object) Raw(k string, v []byte) {
	w.Key(k)
	w.b = append(w.b, v...)
}

// OptRaw writes v unless it is nil.
func (w *Object) OptRaw(k string, v []byte) {
	if v != nil {
		w.Raw(k, v)
	}
}

// Value writes v as encoding/json does, HTML escapes aside. Values that
// marshal themselves (content blocks) come out compacted and validated.
// An error is kept for Close.
func (w *Object) Value(k string, v any) {
	b, err := Marshal(v)
	w.Fail(k, err)
	w.Raw(k, b)
}

// Fail keeps err (when not nil) as field k's error for Close, unless an
// earlier one is kept.
func (w *Object) Fail(k string, err error) {
	if err != nil && w.err == nil {
		w.err = fmt.Errorf("field %s: %w", k, err)
	}
}

// String writes a string.
func (w *Object) String(k, v string) {
	w.Key(k)
	w.b = AppendString(w.b, v)
}

// OptString writes v unless it is empty.
func (w *Object) OptString(k, v string) {
	if v != "" {
		w.String(k, v)
	}
}

// StringPtr writes *v unless v is nil.
func (w *Object) StringPtr(k string, v *string) {
	if v != nil {
		w.String(k, *v)
	}
}

// NullableString writes *v, or null when v is nil.
func (w *Object) NullableString(k string, v *string) {
	if v == nil {
		w.Raw(k, []byte("null"))
		return
	}
	w.String(k, *v)
}

// Int writes an integer.
func (w *Object) Int(k string, v int64) {
	w.Key(k)
	w.b = strconv.AppendInt(w.b, v, 10)
}

// Bool writes a boolean.
func (w *Object) Bool(k string, v bool) {
	w.Key(k)
	w.b = strconv.AppendBool(w.b, v)
}

// BoolPtr writes *v unless v is nil.
func (w *Object) BoolPtr(k string, v *bool) {
	if v != nil {
		w.Bool(k, *v)
	}
}

// Extra writes the fields of m whose keys are not known, in sorted key
// order (kept unknown fields).
func (w *Object) Extra(m map[string]json.RawMessage, known func(string) bool) {
	keys := make([]string, 0, len(m))
	for k := range m {
		if !known(k) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		w.Raw(k, m[k])
	}
}

// Close ends the object and returns it, or the first error kept.
func (w *Object) Close() ([]byte, error) {
	if w.err != nil {
		return nil, w.err
	}
	if len(w.b) == 0 {
		return []byte("{}"), nil
	}
	return append(w.b, '}'), nil
}

// Marshal is json.Marshal without HTML escapes: JSON as JavaScript's
// JSON.stringify writes it for the same value.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
