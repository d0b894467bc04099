package pijson

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// The pieces the adapters' request writers are made of: values appended
// to a []byte as encoding/json writes them with HTML escaping off
// (strings go through AppendString), and size estimates that let a
// request body be allocated once.

// escExtra is how many bytes beyond itself an ASCII byte takes in a
// quoted JSON string: one for \" \\ \b \f \n \r \t, five for \u00XX.
var escExtra = func() (t [256]uint8) {
	for c := range 0x20 {
		t[c] = 5
	}
	for _, c := range "\"\\\b\f\n\r\t" {
		t[c] = 1
	}
	return t
}()

// QuotedSize estimates the length of s quoted as JSON. Short strings are
// counted exactly (valid UTF-8 assumed); long ones count the bytes that
// are escaped in practice (newlines, tabs, carriage returns, quotes,
// backslashes, terminal escapes) with a vectorised pass each, plus 1/64
// of slack for the rest.
func QuotedSize(s string) int {
	n := len(s) + 2
	if len(s) < 64 {
		for i := 0; i < len(s); i++ {
			n += int(escExtra[s[i]])
		}
		return n
	}
	return n + len(s)>>6 + strings.Count(s, "\n") + strings.Count(s, "\t") + strings.Count(s, "\r") +
		strings.Count(s, `"`) + strings.Count(s, `\`) + 5*strings.Count(s, "\x1b")
}

// NumSize bounds the length of an encoded int or float64.
const NumSize = 24

var rawMessageType = reflect.TypeFor[json.RawMessage]()

// AppendRaw appends m as encoding/json writes a json.RawMessage: nil is
// null; anything else must be valid JSON and is compacted (whitespace
// outside strings dropped). Invalid JSON gives json.Marshal's error.
func AppendRaw(b []byte, m json.RawMessage) ([]byte, error) {
	if m == nil {
		return append(b, "null"...), nil
	}
	if !json.Valid(m) {
		err := json.Compact(new(bytes.Buffer), m)
		return b, &json.MarshalerError{Type: rawMessageType, Err: err}
	}
	start, inString := 0, false
	for i := 0; i < len(m); i++ {
		c := m[i]
		if inString {
			switch c {
			case '\\':
				i++ // m is valid, so an escape is complete
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case ' ', '\t', '\n', '\r':
			b = append(b, m[start:i]...)
			start = i + 1
		}
	}
	return append(b, m[start:]...), nil
}

// AppendFloat appends f as encoding/json writes a float64 (ES6 number
// formatting); NaN and infinities give json.Marshal's error.
func AppendFloat(b []byte, f float64) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, &json.UnsupportedValueError{Value: reflect.ValueOf(f), Str: strconv.FormatFloat(f, 'g', -1, 64)}
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 becomes e-9
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}

// AppendMarshal appends v through encoding/json, HTML escaping off: the
// way out for a value of a type the writer does not know.
func AppendMarshal(b []byte, v any) ([]byte, error) {
	out, err := Marshal(v)
	if err != nil {
		return b, err
	}
	return append(b, out...), nil
}

// AppendArray appends xs as a JSON array, each element written by each;
// an element's error stops it.
func AppendArray[T any](b []byte, xs []T, each func(x *T, b []byte) ([]byte, error)) ([]byte, error) {
	b = append(b, '[')
	for i := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = each(&xs[i], b); err != nil {
			return nil, err
		}
	}
	return append(b, ']'), nil
}
