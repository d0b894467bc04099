package session

import (
	"encoding/json"
	"strconv"

	"gopi/pkg/ai"
)

// jsonWriter appends one JSON object field by field in a fixed order,
// escaping strings as JavaScript's JSON.stringify does (no HTML escaping),
// so lines gopi writes match the bytes pi writes for the same entry.
type jsonWriter struct {
	b []byte
}

func (w *jsonWriter) key(k string) {
	if len(w.b) == 0 {
		w.b = append(w.b, '{')
	} else {
		w.b = append(w.b, ',')
	}
	w.b = ai.AppendJSONString(w.b, k)
	w.b = append(w.b, ':')
}

func (w *jsonWriter) str(k, v string) {
	w.key(k)
	w.b = ai.AppendJSONString(w.b, v)
}

func (w *jsonWriter) optStr(k string, v *string) {
	if v != nil {
		w.str(k, *v)
	}
}

func (w *jsonWriter) nullableStr(k string, v *string) {
	if v == nil {
		w.raw(k, []byte("null"))
		return
	}
	w.str(k, *v)
}

func (w *jsonWriter) raw(k string, v []byte) {
	w.key(k)
	w.b = append(w.b, v...)
}

func (w *jsonWriter) optRaw(k string, v []byte) {
	if v != nil {
		w.raw(k, v)
	}
}

func (w *jsonWriter) int(k string, v int64) {
	w.key(k)
	w.b = strconv.AppendInt(w.b, v, 10)
}

func (w *jsonWriter) bool(k string, v bool) {
	w.key(k)
	w.b = strconv.AppendBool(w.b, v)
}

func (w *jsonWriter) optBool(k string, v *bool) {
	if v != nil {
		w.bool(k, *v)
	}
}

// extra writes unknown fields in sorted key order, skipping known keys.
func (w *jsonWriter) extra(m map[string]json.RawMessage, known func(string) bool) {
	for _, k := range sortedKeys(m) {
		if !known(k) {
			w.raw(k, m[k])
		}
	}
}

func (w *jsonWriter) close() []byte {
	if len(w.b) == 0 {
		return []byte("{}")
	}
	return append(w.b, '}')
}
