package session

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"
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
	w.b = appendJSONString(w.b, k)
	w.b = append(w.b, ':')
}

func (w *jsonWriter) str(k, v string) {
	w.key(k)
	w.b = appendJSONString(w.b, v)
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

const hexDigits = "0123456789abcdef"

// appendJSONString quotes s like JSON.stringify; invalid UTF-8 becomes
// U+FFFD so the file stays valid UTF-8.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r != utf8.RuneError || size != 1 {
				i += size
				continue
			}
			b = append(b, s[start:i]...)
			b = append(b, "\ufffd"...)
			i++
			start = i
			continue
		}
		b = append(b, s[start:i]...)
		b = appendEscape(b, c)
		i++
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

func appendEscape(b []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(b, '\\', c)
	case '\b':
		return append(b, '\\', 'b')
	case '\f':
		return append(b, '\\', 'f')
	case '\n':
		return append(b, '\\', 'n')
	case '\r':
		return append(b, '\\', 'r')
	case '\t':
		return append(b, '\\', 't')
	}
	return append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
}

// unescapeHTML undoes encoding/json's HTML-safe escapes (\u003c, \u003e,
// \u0026, \u2028, \u2029) in JSON produced by json.Marshal, which pkg/ai
// uses, so message lines match pi's JSON.stringify output byte for byte.
func unescapeHTML(b []byte) []byte {
	i := indexBackslashU(b, 0)
	if i < 0 {
		return b
	}
	out := make([]byte, 0, len(b))
	last := 0
	for i = 0; i < len(b); i++ {
		if b[i] != '\\' || i+1 >= len(b) {
			continue
		}
		if b[i+1] != 'u' || i+6 > len(b) {
			i++ // skip the escaped character, which may be a backslash
			continue
		}
		var repl string
		switch string(b[i+2 : i+6]) {
		case "003c":
			repl = "<"
		case "003e":
			repl = ">"
		case "0026":
			repl = "&"
		case "2028":
			repl = "\u2028"
		case "2029":
			repl = "\u2029"
		default:
			i += 5
			continue
		}
		out = append(out, b[last:i]...)
		out = append(out, repl...)
		i += 5
		last = i + 1
	}
	return append(out, b[last:]...)
}

func indexBackslashU(b []byte, from int) int {
	for i := from; i+1 < len(b); i++ {
		if b[i] == '\\' && b[i+1] == 'u' {
			return i
		}
	}
	return -1
}
