package oneline

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"gopi/pkg/loop"
)

func TestTextFirstLineTrimmed(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"\n\n  hello\n", 60, "hello"},
		{"first  \n second", 60, "first …"},
		{"first\n   ", 60, "first"},
		{"abcd", 3, "ab…"},
		{"abcdef", 4, "abc…"},
	} {
		if got := Text(c.in, c.n); got != c.want {
			t.Errorf("Text(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
	// A cut line is n characters, the ellipsis included, and one line.
	long := strings.Repeat("ü", 100) + "\nmore"
	if got := Text(long, 20); utf8.RuneCountInString(got) != 20 || strings.Contains(got, "\n") || !strings.HasSuffix(got, "…") {
		t.Errorf("Text(long, 20) = %q", got)
	}
}

func TestKeyArgumentChoosesAndCuts(t *testing.T) {
	t.Parallel()
	sixty := strings.Repeat("a", 60)
	cases := map[string]string{
		`{"path":"a.go","command":"go test"}`: ": go test",
		`{"pattern":"TODO","path":"src"}`:     ": src",
		`{"pattern":"TODO"}`:                  ": TODO",
		`{"command":5,"path":"p"}`:            ": p",
		`{"path":"` + sixty + `"}`:            ": " + sixty,
		`{"path":"` + sixty + `b"}`:           ": " + strings.Repeat("a", 59) + "…",
		`{"command":"tab\there\u0007bell"}`:   ": tab here bell",
		`["command"]`:                         "",
	}
	for in, want := range cases {
		if got := KeyArgument(json.RawMessage(in)); got != want {
			t.Errorf("KeyArgument(%s) = %q, want %q", in, got, want)
		}
	}
}

func TestTrimCounts(t *testing.T) {
	t.Parallel()
	cases := []struct {
		info loop.TrimInfo
		want string
	}{
		{loop.TrimInfo{ContextWindow: 1000, Turns: 2, Messages: 2},
			"the conversation does not fit the model's 1000-token window; left out the oldest 2 turns (2 messages) because compaction is disabled"},
		{loop.TrimInfo{Reason: loop.TrimAfterCompaction, ContextWindow: 1000, Turns: 1, Messages: 3},
			"the conversation does not fit the model's 1000-token window; left out the oldest turn (3 messages) even after compaction"},
	}
	for _, c := range cases {
		if got := Trim(&c.info); got != c.want {
			t.Errorf("got  %s\nwant %s", got, c.want)
		}
	}
}

func TestSpinnerFramesAreOneCharacterEach(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, f := range Spinner {
		if utf8.RuneCountInString(f) != 1 || seen[f] {
			t.Fatalf("frame %q", f)
		}
		seen[f] = true
	}
	if len(Spinner) < 2 {
		t.Fatal("a spinner of one frame does not turn")
	}
}
