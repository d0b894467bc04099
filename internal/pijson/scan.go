// Package pijson reads and writes JSON as pi does: reading exactly as
// encoding/json reads (the same values, the same errors for the same
// inputs), writing as JavaScript's JSON.stringify writes (no HTML escapes),
// so lines gopi writes match pi's bytes. It exists because encoding/json
// re-scans nested raw values at every level, which made a 20 MB session
// take seconds to open: here one pass validates and splits.
//
// A Raw is a value that was validated once; reading it again skips the
// checks. Fields splits an object; Object writes one; Scanner lets a
// codec (pkg/ai's messages) decode while it validates.
package pijson

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/bits"
	"unicode/utf8"
)

// Scanner reads one JSON value in a single pass, validating as strictly as
// encoding/json does.
type Scanner struct {
	b       []byte
	i       int
	trusted bool // b was validated before: skip strings fast
	depth   int  // objects and arrays open at i
	// plainEnd is where the last string scanned that needs no unquoting
	// (ASCII, no escapes) ended, after its closing quote.
	plainEnd int
	sc       *Scratch
}

// NewScanner reads b, which may hold anything.
func NewScanner(b []byte) Scanner { return Scanner{b: b} }

// ScanRaw reads a validated value again, skipping the checks.
func ScanRaw(v Raw) Scanner { return Scanner{b: v, trusted: true} }

// Mark is the scanner's position, for Since.
func (s *Scanner) Mark() int { return s.i }

// Since returns the bytes read from mark (a Mark) to the position; they
// are a Raw when they are whole values the scanner validated.
func (s *Scanner) Since(mark int) Raw { return s.b[mark:s.i] }

// maxDepth matches encoding/json's nesting limit: at most this many
// objects and arrays open at once.
const maxDepth = 10000

// syntaxError locates a JSON error within one line.
type syntaxError struct {
	off int
	msg string
}

func (e *syntaxError) Error() string { return fmt.Sprintf("%s at byte %d", e.msg, e.off) }

func (s *Scanner) fail(msg string) error { return &syntaxError{off: s.i, msg: msg} }

func (s *Scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// Peek skips whitespace and returns the next byte without consuming it (0 at the end).
func (s *Scanner) Peek() byte {
	s.ws()
	if s.i >= len(s.b) {
		return 0
	}
	return s.b[s.i]
}

// End checks that only whitespace follows the value.
func (s *Scanner) End() error {
	if s.Peek() != 0 || s.i < len(s.b) {
		return s.fail("unexpected data after value")
	}
	return nil
}

// Object iterates the members of an object; field must consume one value.
// key is the raw content between the quotes; esc says it needs unquoting.
func (s *Scanner) Object(field func(key []byte, esc bool) error) error {
	if s.Peek() != '{' {
		return s.fail("expected object")
	}
	if err := s.open(); err != nil {
		return err
	}
	if s.Peek() == '}' {
		return s.close()
	}
	for {
		if s.Peek() != '"' {
			return s.fail("expected string key")
		}
		key, esc, err := s.strSpan()
		if err != nil {
			return err
		}
		if s.Peek() != ':' {
			return s.fail("expected colon")
		}
		s.i++
		s.ws()
		if err := field(key, esc); err != nil {
			return err
		}
		switch s.Peek() {
		case ',':
			s.i++
		case '}':
			return s.close()
		default:
			return s.fail("expected comma or end of object")
		}
	}
}

// Array iterates the elements of an array; elem must consume one value.
func (s *Scanner) Array(elem func() error) error {
	if s.Peek() != '[' {
		return s.fail("expected array")
	}
	if err := s.open(); err != nil {
		return err
	}
	if s.Peek() == ']' {
		return s.close()
	}
	for {
		s.ws()
		if err := elem(); err != nil {
			return err
		}
		switch s.Peek() {
		case ',':
			s.i++
		case ']':
			return s.close()
		default:
			return s.fail("expected comma or end of array")
		}
	}
}

// open consumes an opening bracket.
func (s *Scanner) open() error {
	if s.depth++; s.depth > maxDepth {
		return s.fail("exceeded max depth")
	}
	s.i++
	return nil
}

// close consumes a closing bracket.
func (s *Scanner) close() error {
	s.depth--
	s.i++
	return nil
}

// Raw consumes one value and returns its bytes (no surrounding space).
func (s *Scanner) Raw() (Raw, error) {
	s.ws()
	start := s.i
	if err := s.skip(); err != nil {
		return nil, err
	}
	return s.b[start:s.i], nil
}

// Value consumes one value like Raw; plain reports a string token that
// needs no unquoting (ASCII without escapes, found so as it was
// validated), which PlainString reads without scanning it again. A
// trusted scanner never reports plain.
func (s *Scanner) Value() (v Raw, plain bool, err error) {
	if v, err = s.Raw(); err != nil {
		return nil, false, err
	}
	return v, s.plainEnd == s.i && v[0] == '"', nil
}

// PlainString is the value of a string token Value reported plain.
func PlainString(v Raw) string { return string(v[1 : len(v)-1]) }

// skip consumes and validates one value.
func (s *Scanner) skip() error {
	switch c := s.Peek(); {
	case c == '{':
		return s.Object(func([]byte, bool) error { return s.skip() })
	case c == '[':
		return s.Array(s.skip)
	case c == '"':
		_, _, err := s.strSpan()
		return err
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number()
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case c == 0:
		return s.fail("unexpected end of JSON input")
	}
	return s.fail(fmt.Sprintf("invalid character %q looking for beginning of value", s.b[s.i]))
}

func (s *Scanner) literal(lit string) error {
	if len(s.b)-s.i < len(lit) || string(s.b[s.i:s.i+len(lit)]) != lit {
		return s.fail("invalid literal")
	}
	s.i += len(lit)
	return nil
}

func (s *Scanner) digits() int {
	n := 0
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
		n++
	}
	return n
}

func (s *Scanner) number() error {
	if s.b[s.i] == '-' {
		s.i++
	}
	if s.i < len(s.b) && s.b[s.i] == '0' {
		s.i++
	} else if s.digits() == 0 {
		return s.fail("invalid number")
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if s.digits() == 0 {
			return s.fail("invalid number")
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if s.digits() == 0 {
			return s.fail("invalid number")
		}
	}
	return nil
}

// strSpan consumes a string token and returns the bytes between its quotes.
// esc reports escapes or non-ASCII bytes, i.e. that unquote must do work.
// A trusted scanner (re-reading bytes already validated) only looks for
// the closing quote. An untrusted scan of a string without either records
// where it ended (plainEnd), so the field it is the value of is known to
// need no unquoting.
func (s *Scanner) strSpan() (span []byte, esc bool, err error) {
	s.i++
	if s.trusted {
		return s.trustedStrSpan()
	}
	start := s.i
	b := s.b
	for {
		i := nextSpecial(b, s.i)
		if i >= len(b) {
			s.i = i
			return nil, false, s.fail("unterminated string")
		}
		switch c := b[i]; {
		case c == '"':
			s.i = i + 1
			if !esc {
				s.plainEnd = s.i
			}
			return b[start:i], esc, nil
		case c == '\\':
			esc = true
			s.i = i
			if err := s.escape(); err != nil {
				return nil, false, err
			}
		case c < 0x20:
			s.i = i
			return nil, false, s.fail("invalid control character in string")
		default:
			esc = true
			s.i = i + 1
		}
	}
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// specialMask flags, in the high bit of each of the 8 bytes of x, the bytes
// that a string needs attention for: control characters, quotes,
// backslashes and non-ASCII bytes (SWAR). Bytes after the first flagged
// one may be flagged wrongly (a borrow), but the first flagged byte is
// always the first special one, and none is flagged when none is special:
// below the first special byte no subtraction borrows.
func specialMask(x uint64) uint64 {
	q := x ^ ('"' * ones)
	bs := x ^ ('\\' * ones)
	return ((x - 0x20*ones) | (q - ones) | (bs - ones) | x) & highs
}

// nextSpecial returns the index of the first byte of b at or after i that
// a string needs attention for (see specialMask), or len(b).
func nextSpecial(b []byte, i int) int {
	// Sliced as it goes, so the loads need no bounds checks. One word
	// first (escapes often come close together), then 32 bytes a step.
	r := b[i:]
	if len(r) >= 8 {
		if m := specialMask(binary.LittleEndian.Uint64(r)); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
		r = r[8:]
	}
	for len(r) >= 32 {
		m0 := specialMask(binary.LittleEndian.Uint64(r))
		m1 := specialMask(binary.LittleEndian.Uint64(r[8:]))
		m2 := specialMask(binary.LittleEndian.Uint64(r[16:]))
		m3 := specialMask(binary.LittleEndian.Uint64(r[24:]))
		if (m0|m1)|(m2|m3) != 0 {
			at := len(b) - len(r)
			switch {
			case m0 != 0:
				return at + bits.TrailingZeros64(m0)>>3
			case m1 != 0:
				return at + 8 + bits.TrailingZeros64(m1)>>3
			case m2 != 0:
				return at + 16 + bits.TrailingZeros64(m2)>>3
			}
			return at + 24 + bits.TrailingZeros64(m3)>>3
		}
		r = r[32:]
	}
	for len(r) >= 8 {
		if m := specialMask(binary.LittleEndian.Uint64(r)); m != 0 {
			return len(b) - len(r) + bits.TrailingZeros64(m)>>3
		}
		r = r[8:]
	}
	for i, c := range r {
		if c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			return len(b) - len(r) + i
		}
	}
	return len(b)
}

func (s *Scanner) trustedStrSpan() ([]byte, bool, error) {
	start := s.i
	for {
		j := bytes.IndexByte(s.b[s.i:], '"')
		if j < 0 {
			return nil, false, s.fail("unterminated string")
		}
		pos := s.i + j
		n := 0
		for k := pos - 1; k >= start && s.b[k] == '\\'; k-- {
			n++
		}
		s.i = pos + 1
		if n%2 == 0 {
			return s.b[start:pos], true, nil
		}
	}
}

func (s *Scanner) escape() error {
	if s.i+1 >= len(s.b) {
		return s.fail("unterminated string")
	}
	switch s.b[s.i+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		s.i += 2
		return nil
	case 'u':
		if s.i+6 > len(s.b) {
			return s.fail("invalid escape")
		}
		for _, h := range s.b[s.i+2 : s.i+6] {
			if !isHex(h) {
				return s.fail("invalid escape")
			}
		}
		s.i += 6
		return nil
	}
	return s.fail("invalid escape")
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}
