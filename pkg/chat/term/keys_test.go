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
