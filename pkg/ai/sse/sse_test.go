package sse

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

func readAll(t *testing.T, r *Reader) ([]Event, error) {
	t.Helper()
	var evs []Event
	for {
		ev, err := r.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return evs, nil
			}
			return evs, err
		}
		evs = append(evs, ev)
	}
}

func TestReader(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []Event
		wantErr error
	}{
		{
			name: "anthropic framing",
			in:   "event: message_start\ndata: {\"type\":\"message_start\"}\n\nevent: ping\ndata: {\"type\": \"ping\"}\n\n",
			want: []Event{{Name: "message_start", Data: `{"type":"message_start"}`}, {Name: "ping", Data: `{"type": "ping"}`}},
		},
		{
			name: "openai framing with done",
			in:   "data: {\"a\":1}\n\ndata: [DONE]\n\n",
			want: []Event{{Data: `{"a":1}`}, {Data: "[DONE]"}},
		},
		{
			name: "crlf and lone cr",
			in:   "event: x\r\ndata: 1\r\n\r\ndata: 2\r\rdata: 3\n\n",
			want: []Event{{Name: "x", Data: "1"}, {Data: "2"}, {Data: "3"}},
		},
		{
			name: "comments, unknown fields, multi-line data, no space",
			in:   ": keep-alive\nretry: 10\nfoo\ndata:a\ndata:  b\nid: 7\n\n",
			want: []Event{{Data: "a\n b", ID: "7"}},
		},
		{
			name: "blank lines without data dispatch nothing",
			in:   "\n\nevent: lonely\n\n\ndata: x\n\n",
			want: []Event{{Data: "x"}},
		},
		{
			name: "complete last event without blank line",
			in:   "data: [DONE]\n",
			want: []Event{{Data: "[DONE]"}},
		},
		{
			name:    "cut inside a line",
			in:      "data: {\"a\":1}\n\ndata: {\"b\"",
			want:    []Event{{Data: `{"a":1}`}},
			wantErr: io.ErrUnexpectedEOF,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// One byte at a time, so no test depends on read boundaries.
			got, err := readAll(t, NewReader(iotest.OneByteReader(strings.NewReader(tt.in))))
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReaderLimits(t *testing.T) {
	t.Parallel()
	long := "data: " + strings.Repeat("x", 200) + "\n\n"
	_, err := readAll(t, NewReaderSize(strings.NewReader(long), 100))
	if !errors.Is(err, ErrEventTooLarge) {
		t.Fatalf("long line: err = %v, want ErrEventTooLarge", err)
	}
	many := strings.Repeat("data: 0123456789\n", 20) + "\n"
	_, err = readAll(t, NewReaderSize(strings.NewReader(many), 100))
	if !errors.Is(err, ErrEventTooLarge) {
		t.Fatalf("many lines: err = %v, want ErrEventTooLarge", err)
	}
}

func TestReaderPassesReadErrors(t *testing.T) {
	t.Parallel()
	boom := errors.New("connection reset")
	r := io.MultiReader(strings.NewReader("data: 1\n\ndata: 2"), iotest.ErrReader(boom))
	got, err := readAll(t, NewReader(r))
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want %v", err, boom)
	}
	if len(got) != 1 {
		t.Fatalf("got %d events before the error, want 1", len(got))
	}
}

func FuzzReader(f *testing.F) {
	f.Add("event: a\ndata: b\n\n")
	f.Add("data: x\r\n\r\ndata: [DONE]\n")
	f.Add(": c\ndata\ndata:\n\nid: 1\x00\n")
	f.Add("data: {\"a\"")
	f.Fuzz(func(t *testing.T, in string) {
		r := NewReaderSize(strings.NewReader(in), 1<<10)
		for range len(in) + 2 {
			ev, err := r.Next()
			if err != nil {
				return
			}
			if len(ev.Data) > len(in) {
				t.Fatalf("event data longer than input: %q", ev.Data)
			}
		}
		t.Fatalf("reader did not finish %q", in)
	})
}
