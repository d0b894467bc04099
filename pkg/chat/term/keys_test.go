package term

import (
	"io"
	"testing"
)

// chunks is an input that returns one chunk per Read, as a terminal does.
type chunks struct{ parts []string }

func (c *chunks) Read(p []byte) (int, error) {
	if len(c.parts) == 0 {
		return 0, io.EOF
	}
	n := copy(p, c.parts[0])
	c.parts = c.parts[1:]
	return n, nil
}

func (c *chunks) Close() error { return nil }

func TestKeyFilter(t *testing.T) {
	tests := []struct {
		name  string
		reads []string
		want  string
	}{
		{"typed line", []string{"hello", "\r"}, "hello\r"},
		{"alt-enter", []string{"more\x1b\r"}, "more\uE000\r"},
		{"alt-enter split", []string{"more\x1b", "\r"}, "more\uE000\r"},
		{"bracketed paste", []string{"\x1b[200~a\nb\n\x1b[201~", "\r"}, "a↵b↵\r"},
		{"paste marker split", []string{"\x1b[20", "0~x\r\ny\x1b[201~\r"}, "x↵y\r"},
		{"several lines in one read", []string{"one\ntwo\r"}, "one↵two\r"},
		{"arrow keys pass", []string{"\x1b[A\x1b[D"}, "\x1b[A\x1b[D"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := io.ReadAll(newKeyFilter(&chunks{parts: tt.reads}))
			if err != nil || string(got) != tt.want {
				t.Fatalf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// Each key reaches the line editor as soon as it is read: an escape
// sequence waits for the next read only while it may still be a paste
// marker, and a line break at the end of a read is Enter.
func TestKeyFilterDoesNotHoldKeys(t *testing.T) {
	tests := []struct {
		name  string
		reads []string
		first string // what the first Read returns
	}{
		{"alt-b", []string{"\x1bb", "c"}, "\x1bb"},
		{"arrow", []string{"\x1b[A", "c"}, "\x1b[A"},
		{"crlf enter", []string{"hello\r\n", "c"}, "hello\r"},
		{"cr enter", []string{"hello\r", "c"}, "hello\r"},
		{"lf enter", []string{"hello\n", "c"}, "hello\r"},
		{"escape alone waits", []string{"\x1b", "\r"}, "\uE000\r"},
		{"paste start cut short waits", []string{"\x1b[2", "00~a\nb\x1b[201~"}, "a↵b"},
		{"crlf inside a paste", []string{"\x1b[200~a\r\nb\x1b[201~"}, "a↵b"},
		{"blank line inside a paste", []string{"\x1b[200~a\n\nb\x1b[201~"}, "a↵↵b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newKeyFilter(&chunks{parts: tt.reads})
			p := make([]byte, 64)
			n, err := f.Read(p)
			if err != nil || string(p[:n]) != tt.first {
				t.Fatalf("first Read = %q, %v; want %q", p[:n], err, tt.first)
			}
		})
	}
}

// A small buffer gets the rewritten input in pieces, none lost; the
// input's end is passed on once everything was read.
func TestKeyFilterSmallReads(t *testing.T) {
	f := newKeyFilter(&chunks{parts: []string{"ab\x1b\rcd"}})
	var got []byte
	p := make([]byte, 2)
	for {
		n, err := f.Read(p)
		got = append(got, p[:n]...)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if string(got) != "ab\uE000\rcd" {
		t.Fatalf("read %q", got)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
