package term

import (
	"bytes"
	"io"
	"unicode/utf8"
)

// Runes keyFilter puts into the input for the line editor.
const (
	// altEnterRune precedes the Enter of Alt-Enter (ESC CR), which the line
	// editor would otherwise read as a plain Enter.
	altEnterRune = '\uE000'
	// pastedNewline stands for a line break inside pasted text; the line
	// editor shows it and ReadLine turns it back into "\n".
	pastedNewline = '↵'
)

var (
	pasteStart = []byte("\x1b[200~")
	pasteEnd   = []byte("\x1b[201~")
)

// keyFilter rewrites terminal input before the line editor sees it:
// Alt-Enter is marked, and line breaks inside a paste (bracketed, or
// several lines arriving in one read) do not send the line.
type keyFilter struct {
	in    io.ReadCloser
	raw   []byte // input not yet rewritten (an escape sequence cut short)
	out   []byte
	paste bool
	buf   [4096]byte
}

func newKeyFilter(in io.ReadCloser) *keyFilter { return &keyFilter{in: in} }

// Read returns rewritten input; it blocks until some is ready.
func (k *keyFilter) Read(p []byte) (int, error) {
	for len(k.out) == 0 {
		n, err := k.in.Read(k.buf[:])
		k.raw = append(k.raw, k.buf[:n]...)
		k.rewrite(err != nil)
		if err != nil && len(k.out) == 0 {
			return 0, err
		}
	}
	n := copy(p, k.out)
	k.out = k.out[n:]
	return n, nil
}

// Close closes the input.
func (k *keyFilter) Close() error { return k.in.Close() }

// rewrite moves k.raw to k.out; a possibly unfinished escape sequence at
// the end waits for the next read unless final.
func (k *keyFilter) rewrite(final bool) {
	b := k.raw
	i := 0
	for i < len(b) {
		rest := b[i:]
		switch {
		case bytes.HasPrefix(rest, pasteStart):
			k.paste, i = true, i+len(pasteStart)
		case bytes.HasPrefix(rest, pasteEnd):
			k.paste, i = false, i+len(pasteEnd)
		case !final && rest[0] == 0x1b && (len(rest) == 1 || cutShort(rest)):
			k.raw = append(k.raw[:0:0], rest...)
			return
		case rest[0] == 0x1b && len(rest) > 1 && (rest[1] == '\r' || rest[1] == '\n'):
			k.out = utf8.AppendRune(k.out, altEnterRune)
			k.out = append(k.out, '\r')
			i += 2
		case rest[0] == '\r' || rest[0] == '\n':
			j := i + 1
			if rest[0] == '\r' && len(rest) > 1 && rest[1] == '\n' {
				j++
			}
			if k.paste || j < len(b) {
				k.out = utf8.AppendRune(k.out, pastedNewline)
			} else {
				k.out = append(k.out, '\r')
			}
			i = j
		default:
			k.out = append(k.out, rest[0])
			i++
		}
	}
	k.raw = k.raw[:0]
}

// cutShort reports whether rest is the start of a paste marker.
func cutShort(rest []byte) bool {
	return len(rest) < len(pasteStart) && (bytes.HasPrefix(pasteStart, rest) || bytes.HasPrefix(pasteEnd, rest))
}
