package rpcdrive

import (
	"errors"
	"io"
	"strings"
	"testing"
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
