package ai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
)

// objWriter writes one JSON object field by field, in a fixed order, with
// strings quoted as JSON.stringify quotes them (no HTML escapes), so what
// gopi writes matches pi's bytes.
type objWriter struct {
	b   []byte
	err error
}

func (w *objWriter) key(k string) {
	if len(w.b) == 0 {
		w.b = append(w.b, '{')
	} else {
		w.b = append(w.b, ',')
	}
	w.b = AppendJSONString(w.b, k)
	w.b = append(w.b, ':')
}

func (w *objWriter) raw(k string, v []byte) {
	w.key(k)
	w.b = append(w.b, v...)
}

// value writes v as encoding/json does, HTML escapes aside. Values that
// marshal themselves (content blocks) come out compacted and validated.
func (w *objWriter) value(k string, v any) {
	b, err := MarshalNoEscape(v)
	if err != nil && w.err == nil {
		w.err = fmt.Errorf("field %s: %w", k, err)
	}
	w.raw(k, b)
}

func (w *objWriter) str(k, v string) {
	w.key(k)
	w.b = AppendJSONString(w.b, v)
}

func (w *objWriter) optStr(k, v string) {
	if v != "" {
		w.str(k, v)
	}
}

func (w *objWriter) integer(k string, v int64) {
	w.key(k)
	w.b = strconv.AppendInt(w.b, v, 10)
}

func (w *objWriter) boolean(k string, v bool) {
	w.key(k)
	w.b = strconv.AppendBool(w.b, v)
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
	if len(w.b) == 0 {
		return []byte("{}"), nil
	}
	return append(w.b, '}'), nil
}

// MarshalNoEscape is json.Marshal without HTML escapes: JSON as
// JavaScript's JSON.stringify writes it for the same value.
func MarshalNoEscape(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
