package sse_test

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/google/go-cmp/cmp"

	"gopi/pkg/ai/sse"
)

// readAll reads events to the end. A reader that keeps returning events
// without error fails the test after limit of them instead of spinning.
func readAll(t testing.TB, r *sse.Reader, limit int) ([]sse.Event, error) {
	t.Helper()
	var evs []sse.Event
	for range limit + 1 {
		ev, err := r.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return evs, nil
			}
			return evs, err
		}
		evs = append(evs, ev)
	}
	t.Fatalf("more than %d events: %+v", limit, evs)
	return nil, nil
}

// deliveries are the ways a stream's bytes may arrive; no result may
// depend on them.
var deliveries = map[string]func(io.Reader) io.Reader{
	"whole":          func(r io.Reader) io.Reader { return r },
	"byte by byte":   iotest.OneByteReader,
	"halves":         iotest.HalfReader,
	"eof with data":  iotest.DataErrReader,
	"bytes with eof": func(r io.Reader) io.Reader { return iotest.DataErrReader(iotest.OneByteReader(r)) },
}

func TestReader(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		want    []sse.Event
		wantErr error
	}{
		{
			name: "anthropic framing",
			in:   "event: message_start\ndata: {\"type\":\"message_start\"}\n\nevent: ping\ndata: {\"type\": \"ping\"}\n\n",
			want: []sse.Event{{Name: "message_start", Data: `{"type":"message_start"}`}, {Name: "ping", Data: `{"type": "ping"}`}},
		},
		{
			name: "openai framing with done",
			in:   "data: {\"a\":1}\n\ndata: [DONE]\n\n",
			want: []sse.Event{{Data: `{"a":1}`}, {Data: "[DONE]"}},
		},
		{
			name: "a name does not carry over",
			in:   "event: a\ndata: 1\n\ndata: 2\n\n",
			want: []sse.Event{{Name: "a", Data: "1"}, {Data: "2"}},
		},
		{
			name: "crlf",
			in:   "event: x\r\ndata: 1\r\n\r\ndata: 2\r\n\r\n",
			want: []sse.Event{{Name: "x", Data: "1"}, {Data: "2"}},
		},
		{
			name: "lone cr only",
			in:   "event: x\rdata: 1\r\rdata: 2\r\r",
			want: []sse.Event{{Name: "x", Data: "1"}, {Data: "2"}},
		},
		{
			name: "mixed line ends",
			in:   "data: 1\r\n\rdata: 2\n\r\ndata: 3\r\rdata: 4\n\n",
			want: []sse.Event{{Data: "1"}, {Data: "2"}, {Data: "3"}, {Data: "4"}},
		},
		{
			name: "lf lines then cr lines",
			in:   "data: 1\n\ndata: 2\r\r",
			want: []sse.Event{{Data: "1"}, {Data: "2"}},
		},
		{
			name: "cr at the start of a line",
			in:   "data: 1\n\rdata: 2\n\n",
			want: []sse.Event{{Data: "1"}, {Data: "2"}},
		},
		{
			name: "cr cr lf is a line and a blank line",
			in:   "data: 1\r\r\ndata: 2\n\n",
			want: []sse.Event{{Data: "1"}, {Data: "2"}},
		},
		{
			name: "comments and unknown fields",
			in:   ": keep-alive\n:\nretry: 10\nfoo\nfoo: bar\ndata: x\n:: also a comment\n\n",
			want: []sse.Event{{Data: "x"}},
		},
		{
			name: "a one-byte comment inside an event",
			in:   "data: 1\n:\ndata: 2\n\n",
			want: []sse.Event{{Data: "1\n2"}},
		},
		{
			name: "multi-line data and spaces",
			in:   "data:a\ndata:  b\ndata: \ndata:\ndata: c: d\n\n",
			want: []sse.Event{{Data: "a\n b\n\n\nc: d"}},
		},
		{
			name: "a field without a colon has an empty value",
			in:   "data\ndata\n\ndata\n\n",
			want: []sse.Event{{Data: "\n"}, {Data: ""}},
		},
		{
			name: "an event name keeps its spaces but the first",
			in:   "event:  x \ndata: 1\n\n",
			want: []sse.Event{{Name: " x ", Data: "1"}},
		},
		{
			name: "ids persist until changed",
			in:   "id: 1\ndata: a\n\ndata: b\n\nid: 2\n\ndata: c\n\nid\ndata: d\n\nid: x\x00y\ndata: e\n\nid: \x01\ndata: f\n\n",
			want: []sse.Event{{Data: "a", ID: "1"}, {Data: "b", ID: "1"}, {Data: "c", ID: "2"}, {Data: "d"}, {Data: "e"}, {Data: "f", ID: "\x01"}},
		},
		{
			name: "blank lines without data dispatch nothing",
			in:   "\n\nevent: lonely\n\n\ndata: x\n\n",
			want: []sse.Event{{Data: "x"}},
		},
		{
			name: "empty stream",
			in:   "",
		},
		{
			name: "only a comment",
			in:   ": hi\n",
		},
		{
			name: "complete last event without blank line",
			in:   "data: [DONE]\n",
			want: []sse.Event{{Data: "[DONE]"}},
		},
		{
			name: "complete last event ended by cr",
			in:   "data: [DONE]\r",
			want: []sse.Event{{Data: "[DONE]"}},
		},
		{
			name:    "cut inside a line",
			in:      "data: {\"a\":1}\n\ndata: {\"b\"",
			want:    []sse.Event{{Data: `{"a":1}`}},
			wantErr: io.ErrUnexpectedEOF,
		},
		{
			name:    "cut one byte into a line",
			in:      "data: 1\n\nd",
			want:    []sse.Event{{Data: "1"}},
			wantErr: io.ErrUnexpectedEOF,
		},
		{
			name:    "cut after complete lines of an event",
			in:      "data: 1\ndata: 2",
			wantErr: io.ErrUnexpectedEOF,
		},
	}
	for _, tt := range tests {
		for how, deliver := range deliveries {
			t.Run(tt.name+"/"+how, func(t *testing.T) {
				r := sse.NewReader(deliver(strings.NewReader(tt.in)))
				got, err := readAll(t, r, len(tt.in))
				if err != tt.wantErr {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("events (-want +got):\n%s", diff)
				}
				if err == nil {
					if _, err := r.Next(); err != io.EOF {
						t.Errorf("Next after the end = %v, want io.EOF again", err)
					}
				}
			})
		}
	}
}

// A line is handed on when its end arrives, whatever the end is, without
// waiting for the next byte (which may not come for a long time).
func TestReaderDoesNotWaitPastALineEnd(t *testing.T) {
	t.Parallel()
	for _, end := range []string{"\n", "\r", "\r\n"} {
		pr, pw := io.Pipe()
		r := sse.NewReader(pr)
		got := make(chan sse.Event)
		go func() {
			defer close(got)
			for {
				ev, err := r.Next()
				if err != nil {
					return
				}
				got <- ev
			}
		}()
		for _, want := range []string{"1", "2"} {
			if _, err := io.WriteString(pw, "data: "+want+end+end); err != nil {
				t.Fatal(err)
			}
			// The writer is not heard from again until the event is out.
			select {
			case ev := <-got:
				if ev.Data != want {
					t.Errorf("end %q: event %q, want %q", end, ev.Data, want)
				}
			case <-time.After(10 * time.Second):
				_ = pw.Close()
				t.Fatalf("end %q: event %q not read 10s after its end was written", end, want)
			}
		}
		_ = pw.Close()
		if ev, ok := <-got; ok {
			t.Errorf("end %q: extra event %+v", end, ev)
		}
	}
}

func TestReaderLimits(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		max  int
		in   string
		want []sse.Event // nil: ErrEventTooLarge
	}{
		{"a line at the limit", 16, "data: 0123456789\n\n", []sse.Event{{Data: "0123456789"}}},
		{"a line over the limit", 16, "data: 0123456789a\n\n", nil},
		{"a crlf line at the limit", 16, "data: 0123456789\r\n\r\n", []sse.Event{{Data: "0123456789"}}},
		{"a cr line at the limit", 16, "data: 0123456789\r\r", []sse.Event{{Data: "0123456789"}}},
		{"a cut line over the limit", 16, "data: 0123456789a", nil},
		{"lines at the limit together", 16, "data: 01\ndata: 2\nx\n\n", []sse.Event{{Data: "01\n2"}}},
		{"lines over the limit together", 16, "data: 01\ndata: 2\nxy\n\n", nil},
		{"comments count", 16, ": 0123456789\ndata: 1\n\n", nil},
		{"each event has the whole limit", 16, "data: 0123456789\n\ndata: 0123456789\n\n", []sse.Event{{Data: "0123456789"}, {Data: "0123456789"}}},
		{"a blank line ends the count", 16, "event: 012345678\n\ndata: 0123456789\n\n", []sse.Event{{Data: "0123456789"}}},
		{"the smallest limit", 1, "data: x\n\n", nil},
		{"a zero limit is the default", 0, "data: x\n\n", []sse.Event{{Data: "x"}}},
		{"a negative limit is the default", -1, "data: x\n\n", []sse.Event{{Data: "x"}}},
		{"a line longer than the read buffer", 200 << 10, "data: " + strings.Repeat("y", 150<<10) + "\n\n", []sse.Event{{Data: strings.Repeat("y", 150<<10)}}},
		{"a line longer than the read buffer and the limit", 100 << 10, "data: " + strings.Repeat("y", 150<<10) + "\n\n", nil},
	}
	for _, tt := range tests {
		for how, deliver := range deliveries {
			t.Run(tt.name+"/"+how, func(t *testing.T) {
				got, err := readAll(t, sse.NewReaderSize(deliver(strings.NewReader(tt.in)), tt.max), 10)
				if tt.want == nil {
					if err != sse.ErrEventTooLarge {
						t.Errorf("err = %v, want ErrEventTooLarge", err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("events (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// The default limit is 16 MiB of event lines.
func TestReaderDefaultLimit(t *testing.T) {
	t.Parallel()
	data := strings.Repeat("z", sse.DefaultMaxEventSize-len("data: "))
	if sse.DefaultMaxEventSize != 16<<20 {
		t.Errorf("DefaultMaxEventSize = %d, want 16 MiB", sse.DefaultMaxEventSize)
	}
	got, err := readAll(t, sse.NewReader(strings.NewReader("data: "+data+"\n\n")), 1)
	if err != nil || len(got) != 1 || got[0].Data != data {
		t.Fatalf("an event of 16 MiB: %d events, err %v", len(got), err)
	}
	_, err = readAll(t, sse.NewReader(strings.NewReader("data: "+data+"!\n\n")), 1)
	if err != sse.ErrEventTooLarge {
		t.Errorf("an event of 16 MiB and a byte: err = %v, want ErrEventTooLarge", err)
	}
}

func TestReaderPassesReadErrors(t *testing.T) {
	t.Parallel()
	boom := errors.New("connection reset")
	for _, in := range []string{"data: 1\n\ndata: 2", "data: 1\n\n", "data: 1\n\ndata: 2\n"} {
		r := io.MultiReader(strings.NewReader(in), iotest.ErrReader(boom))
		got, err := readAll(t, sse.NewReader(r), 10)
		if !errors.Is(err, boom) || err.Error() != "sse: read: connection reset" {
			t.Errorf("%q: err = %v, want it wrapping %v", in, err, boom)
		}
		if len(got) != 1 || got[0].Data != "1" {
			t.Errorf("%q: events before the error = %+v", in, got)
		}
	}
}

func FuzzReader(f *testing.F) {
	f.Add("event: a\ndata: b\n\n")
	f.Add("data: x\r\n\r\ndata: [DONE]\n")
	f.Add(": c\ndata\ndata:\n\nid: 1\x00\n")
	f.Add("data: {\"a\"")
	f.Add("data: 1\r\rdata: 2\r\r\n")
	f.Fuzz(func(t *testing.T, in string) {
		whole, werr := readAll(t, sse.NewReaderSize(strings.NewReader(in), 1<<10), len(in)+1)
		for _, ev := range whole {
			if len(ev.Data) > len(in) {
				t.Fatalf("event data longer than input: %q", ev.Data)
			}
		}
		// Read boundaries change nothing.
		bytewise, berr := readAll(t, sse.NewReaderSize(iotest.OneByteReader(strings.NewReader(in)), 1<<10), len(in)+1)
		if werr != berr || !cmp.Equal(whole, bytewise) {
			t.Fatalf("%q: whole %+v %v, byte by byte %+v %v", in, whole, werr, bytewise, berr)
		}
	})
}

// BenchmarkReader reads a recorded-size stream of small text deltas.
func BenchmarkReader(b *testing.B) {
	var sb strings.Builder
	for range 2000 {
		sb.WriteString("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hello, world\"}}\n\n")
	}
	stream := sb.String()
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := readAll(b, sse.NewReader(strings.NewReader(stream)), 2000); err != nil {
			b.Fatal(err)
		}
	}
}
