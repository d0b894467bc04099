package anthropic

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"gopi/pkg/ai"
	"gopi/pkg/ai/provider/providertest"
)

// A body written as it is sent is the body encode writes, byte for byte,
// with that length, from every read pattern; small bodies are written
// whole, long ones a message at a time.
func TestStreamedBodyIsTheEncodedBody(t *testing.T) {
	long := providertest.BenchRequest(sonnet, 3000, "toolu_")
	long.Temperature = new(0.5)
	cases := map[string]struct {
		r        *request
		streamed bool
	}{
		"small":              {newRequest(Config{Info: sonnet}, sampleRequest(sonnet, "a \"b\"\n\u2028 <c>", 1)), false},
		"medium":             {newRequest(Config{Info: sonnet}, providertest.BenchRequest(sonnet, 400, "toolu_")), false},
		"long":               {newRequest(Config{Info: sonnet}, long), true},
		"long without cache": {newRequest(Config{Info: plainInfo, NoCache: true}, long), true},
		"long, nil messages": {&request{Model: "m", System: []*textBlock{{Type: "text", Text: string(make([]byte, streamMin))}}}, true},
		"long, no messages":  {&request{Model: "m", Messages: []message{}, Tools: []tool{{Name: "t", Description: string(make([]byte, streamMin))}}}, true},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			want, err := c.r.encode()
			if err != nil {
				t.Fatal(err)
			}
			b, err := newBody(c.r)
			if err != nil {
				t.Fatal(err)
			}
			if streamed := b.whole == nil; streamed != c.streamed {
				t.Fatalf("streamed = %v for a body of %d bytes", streamed, len(want))
			}
			if name == "medium" && (len(want) <= 64<<10 || len(want) > streamMin) {
				t.Fatalf("the medium body is %d bytes, not between %d and %d", len(want), 64<<10, streamMin)
			}
			if b.size != int64(len(want)) {
				t.Errorf("size = %d, encode wrote %d bytes", b.size, len(want))
			}
			// Every read pattern (one byte, halves, the rest at once) and a
			// second reader from the start give the same bytes.
			for i := range 2 {
				if err := iotest.TestReader(b.reader(), want); err != nil {
					t.Fatalf("reader %d: %v", i, err)
				}
			}
		})
	}
}

// The model sends the long body with its Content-Length, and sends the
// same bytes again on a retry.
func TestLongBodySentAsEncodedOnEveryAttempt(t *testing.T) {
	text := providertest.File(t, "testdata/text.sse")
	srv, m, _ := fixture(t,
		providertest.Status(529, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`),
		providertest.SSE(text))
	req := providertest.BenchRequest(sonnet, 3000, "toolu_")
	want, err := newRequest(m.cfg, req).encode()
	if err != nil {
		t.Fatal(err)
	}
	if len(want) <= streamMin {
		t.Fatalf("a body of %d bytes is not long enough to be streamed", len(want))
	}
	_, msg := stream(t, m, req)
	if msg.StopReason != ai.StopStop {
		t.Fatalf("stop = %s (%s)", msg.StopReason, msg.ErrorMessage)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("requests = %d, want 2", len(reqs))
	}
	for i, r := range reqs {
		if string(r.Body) != string(want) {
			t.Errorf("attempt %d: body of %d bytes differs from the %d encoded", i+1, len(r.Body), len(want))
		}
		if cl := r.Header.Get("Content-Length"); cl != strconv.Itoa(len(want)) || r.Header.Get("Transfer-Encoding") != "" {
			t.Errorf("attempt %d: Content-Length %q, Transfer-Encoding %q", i+1, cl, r.Header.Get("Transfer-Encoding"))
		}
	}
}

// A long body that cannot be encoded fails the request before anything
// is sent, as a small one does.
func TestLongBodyEncodingErrorSendsNothing(t *testing.T) {
	srv, m, _ := fixture(t)
	req := providertest.BenchRequest(sonnet, 3000, "toolu_")
	req.Thinking, req.Temperature = ai.ThinkingOff, new(math.NaN())
	evs, msg := stream(t, m, req)
	if msg.StopReason != ai.StopError {
		t.Fatalf("stop = %s", msg.StopReason)
	}
	if pe := providertest.ProviderError(t, evs); pe.Class != ai.ClassInternal {
		t.Errorf("class = %s (%s)", pe.Class, pe.Message)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}

// A long body's measure fails with the error encode meets first, whichever
// messages are bad.
func TestLongBodyMeasureErrorIsTheFirst(t *testing.T) {
	for name, bad := range map[string][]int{"none": nil, "first half": {10}, "second half": {500}, "both": {10, 500}} {
		t.Run(name, func(t *testing.T) {
			r := &request{Model: "m", MaxTokens: 1}
			for i := range 600 {
				input := json.RawMessage(`{"i":` + strconv.Itoa(i) + `}`)
				for j, at := range bad {
					if i == at {
						input = json.RawMessage([]string{`{"a":x}`, `[1,]`}[j])
					}
				}
				r.Messages = append(r.Messages, message{Role: "assistant", Content: []any{
					&textBlock{Type: "text", Text: strings.Repeat("line \"q\"\n", i%7)},
					&toolUseBlock{Type: "tool_use", ID: "t", Name: "n", Input: input},
				}})
			}
			want, werr := r.encode()
			n, err := r.measure()
			if (err == nil) != (werr == nil) || (err != nil && err.Error() != werr.Error()) || (err == nil && n != len(want)) {
				t.Fatalf("measure = %d, %v; encode wrote %d bytes, %v", n, err, len(want), werr)
			}
			if (err != nil) != (len(bad) > 0) {
				t.Fatalf("error %v with bad inputs at %v", err, bad)
			}
		})
	}
}
