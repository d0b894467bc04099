package pijson

import (
	"bytes"
	"strconv"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// This file reads and writes JSON strings in pi's dialect: reading exactly
// as encoding/json does, writing exactly as JavaScript's JSON.stringify does.

// str consumes a string token and returns its value.
func (s *Scanner) str() (string, error) {
	span, esc, err := s.strSpan()
	if err != nil {
		return "", err
	}
	return unquote(span, esc), nil
}

// unquote decodes a validated string body exactly as encoding/json does:
// invalid UTF-8 and lone surrogates become U+FFFD.
func unquote(span []byte, esc bool) string {
	if !esc {
		return string(span)
	}
	valid := utf8.Valid(span)
	if valid && bytes.IndexByte(span, '\\') < 0 {
		return string(span)
	}
	out := make([]byte, 0, len(span))
	for r := 0; r < len(span); {
		c := span[r]
		switch {
		case c == '\\':
			r = unescapeAt(span, r, &out)
		case valid:
			// Copy up to the next escape in one go.
			j := bytes.IndexByte(span[r:], '\\')
			if j < 0 {
				j = len(span) - r
			}
			out = append(out, span[r:r+j]...)
			r += j
		case c < utf8.RuneSelf:
			out = append(out, c)
			r++
		default:
			rr, size := utf8.DecodeRune(span[r:])
			out = utf8.AppendRune(out, rr)
			r += size
		}
	}
	// out is never written again: share its bytes rather than copy a tool
	// output's worth of text once more.
	return unsafe.String(unsafe.SliceData(out), len(out))
}

var simpleEscapes = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// unescapeAt decodes the escape at span[r] into out and returns the next index.
func unescapeAt(span []byte, r int, out *[]byte) int {
	if c := simpleEscapes[span[r+1]]; c != 0 {
		*out = append(*out, c)
		return r + 2
	}
	rr := getu4(span[r:])
	r += 6
	if utf16.IsSurrogate(rr) {
		if dec := utf16.DecodeRune(rr, getu4(span[r:])); dec != unicode.ReplacementChar {
			*out = utf8.AppendRune(*out, dec)
			return r + 6
		}
		rr = unicode.ReplacementChar
	}
	*out = utf8.AppendRune(*out, rr)
	return r
}

// getu4 decodes \uXXXX at the start of b, or returns -1.
func getu4(b []byte) rune {
	if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
		return -1
	}
	v, err := strconv.ParseUint(string(b[2:6]), 16, 32)
	if err != nil {
		return -1
	}
	return rune(v)
}

// Unquote returns the value of the JSON string token v, decoded exactly
// as encoding/json decodes it. Anything but one string token is an error.
func Unquote(v []byte) (string, error) {
	s := Scanner{b: v}
	if s.Peek() != '"' {
		return "", s.fail("expected string")
	}
	str, err := s.str()
	if err != nil {
		return "", err
	}
	return str, s.End()
}

// RawString decodes a validated string token. A token of plain ASCII
// without escapes, the common case of a key's or an id's value, is
// copied as it is.
func RawString(v Raw) string {
	span := v[1 : len(v)-1]
	return unquote(span, nextSpecial(span, 0) < len(span))
}

const hexDigits = "0123456789abcdef"

// AppendString appends s quoted as JavaScript's JSON.stringify quotes
// it: no HTML escapes, U+2028 and U+2029 written as they are, so lines
// gopi writes match pi's bytes. Invalid UTF-8 becomes U+FFFD so the output
// stays valid UTF-8.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	// Read only, to scan it as bytes.
	sb := unsafe.Slice(unsafe.StringData(s), len(s))
	start := 0
	for i := 0; ; {
		if i = nextSpecial(sb, i); i >= len(s) {
			break
		}
		c := s[i]
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

// QuotedLen is the exact length of AppendString's output for s, found
// without writing it.
func QuotedLen(s string) int {
	sb := unsafe.Slice(unsafe.StringData(s), len(s))
	n := len(s) + 2
	for i := 0; ; {
		if i = nextSpecial(sb, i); i >= len(s) {
			return n
		}
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				n += len("\ufffd") - 1
			}
			i += size
			continue
		}
		switch c {
		case '"', '\\', '\b', '\f', '\n', '\r', '\t':
			n++
		default:
			n += len(`\u0000`) - 1
		}
		i++
	}
}
