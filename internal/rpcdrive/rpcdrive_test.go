package rpcdrive

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

// The reader splits as pi's client does: at LF only, a CR before it
// dropped, U+2028 and U+2029 kept inside a record, a last record without
// LF returned.
func TestReaderSplitsAtLFOnly(t *testing.T) {
	in := "{\"a\":\"x\u2028y\u2029z\"}\n{\"b\":1}\r\n\n{\"c\":\"\r\"}\n{\"d\":2}"
	r := NewReader(strings.NewReader(in))
	want := []string{"{\"a\":\"x\u2028y\u2029z\"}", `{"b":1}`, ``, "{\"c\":\"\r\"}", `{"d":2}`}
	for i, w := range want {
		got, err := r.Next()
		if err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		if string(got) != w {
			t.Fatalf("record %d = %q, want %q", i, got, w)
		}
	}
	if _, err := r.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("after the last record: %v, want EOF", err)
	}
}

func TestParseRefusesUnknownSteps(t *testing.T) {
	if _, err := Parse("send {}\nshout x\n"); err == nil || !strings.Contains(err.Error(), `line 2: unknown step "shout"`) {
		t.Fatalf("err = %v", err)
	}
	if _, err := Parse("wait\n"); err == nil || !strings.Contains(err.Error(), "wait needs an argument") {
		t.Fatalf("err = %v", err)
	}
	steps, err := Parse("# comment\nsend {\"type\":\"get_state\"}\r\n\nclose\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != 2 || steps[0].Arg != "{\"type\":\"get_state\"}\r" || steps[1].Op != "close" {
		t.Fatalf("steps = %q", steps)
	}
}

// fullPipe is a stdout that says it is full once its reader stopped.
type fullPipe struct {
	*io.PipeReader
	full func() bool
}

func (p fullPipe) Full() (bool, error) { return p.full(), nil }

// stall stops reading: records written after it are not returned, and
// Run returns after the last step without waiting for stdout's end;
// hangup closes stdout, so the process's next write fails.
func TestStallAndHangup(t *testing.T) {
	steps, err := Parse("wait one\nstall\nsend late\n")
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go func() { _, _ = io.WriteString(outW, "one\n") }()
	go func() { _, _ = io.ReadAll(inR) }()
	got, err := Run(steps, t.TempDir(), inW, fullPipe{outR, func() bool { return true }}, time.Minute, nil)
	if err != nil || len(got) != 1 || string(got[0]) != "one" {
		t.Fatalf("stall: got %q, %v", got, err)
	}
	outR.Close()
	if _, err := io.WriteString(outW, "after\n"); err == nil {
		t.Fatal("a write after the reader went away succeeded")
	}

	steps, err = Parse("hangup\n")
	if err != nil {
		t.Fatal(err)
	}
	inR, inW = io.Pipe()
	defer inR.Close()
	outR, outW = io.Pipe()
	if _, err := Run(steps, t.TempDir(), inW, outR, time.Minute, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(outW, "x\n"); !errors.Is(err, io.ErrClosedPipe) {
		t.Fatalf("write after hangup: %v, want a closed pipe", err)
	}
	if _, err := Parse("stall now\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := Run([]Step{{Op: "stall"}}, t.TempDir(), inW, strings.NewReader(""), time.Minute, nil); err == nil || !strings.Contains(err.Error(), "cannot tell when its pipe is full") {
		t.Fatalf("stall on a plain reader: %v", err)
	}
}

// capture takes a value from a record read so far; send replaces
// {{NAME}} with it and with RunWith's values.
func TestCaptureAndSubstitute(t *testing.T) {
	steps, err := Parse("wait \"id\":1\ncapture S \"sessionId\":\"([^\"]+)\"\nsend {\"s\":\"{{S}}\",\"w\":\"{{WORK}}\"}\n")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Parse("capture S\n"); err == nil || !strings.Contains(err.Error(), "capture needs a name and a regexp") {
		t.Fatalf("err = %v", err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	sent := make(chan string, 1)
	go func() {
		_, _ = io.WriteString(outW, `{"id":1,"result":{"sessionId":"abc-1"}}`+"\n")
		b, _ := io.ReadAll(inR)
		sent <- string(b)
		outW.Close()
	}()
	if _, err := RunWith(steps, t.TempDir(), inW, outR, 5*time.Second, nil, map[string]string{"WORK": "/w"}); err != nil {
		t.Fatal(err)
	}
	if got := <-sent; got != `{"s":"abc-1","w":"/w"}`+"\n" {
		t.Fatalf("sent %q", got)
	}
	steps, _ = Parse("capture S nothing(here)\n")
	if _, err := RunWith(steps, t.TempDir(), nopCloser{io.Discard}, strings.NewReader(""), time.Second, nil, nil); err == nil || !strings.Contains(err.Error(), "no record read so far matches") {
		t.Fatalf("err = %v", err)
	}
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
