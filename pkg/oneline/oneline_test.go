package oneline

import (
	"encoding/json"
	"strings"
	"testing"

	"gopi/pkg/loop"
)

func TestText(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"  fix the test  ", 60, "fix the test"},
		{"first\nsecond", 60, "first …"},
		{"first\n\n  \n", 60, "first"},
		{"héllo wörld", 5, "héll…"},
		{"abc", 3, "abc"},
	} {
		if got := Text(c.in, c.n); got != c.want {
			t.Errorf("Text(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}

func TestKeyArgumentIsOneSafeLine(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		`{"command":"ls -la"}`:                       ": ls -la",
		`{"command":"echo a\nrm b\u001b[2J"}`:        ": echo a rm b [2J",
		`{"path":"` + strings.Repeat("é", 80) + `"}`: ": " + strings.Repeat("é", 59) + "…",
		`{"other":1}`: "",
		`not json`:    "",
	}
	for in, want := range cases {
		if got := KeyArgument(json.RawMessage(in)); got != want {
			t.Errorf("KeyArgument(%s) = %q, want %q", in, got, want)
		}
	}
}

func TestTrimSaysWhy(t *testing.T) {
	t.Parallel()
	cases := []struct {
		info loop.TrimInfo
		want string
	}{
		{loop.TrimInfo{Reason: loop.TrimCompactionFailed, ErrorMessage: "summarization failed: overloaded", ContextWindow: 200000, Turns: 12, Messages: 340},
			"the conversation does not fit the model's 200000-token window; left out the oldest 12 turns (340 messages) because compaction failed: summarization failed: overloaded"},
		{loop.TrimInfo{Reason: loop.TrimAfterCompaction, ContextWindow: 8000, Turns: 1, Messages: 1},
			"the conversation does not fit the model's 8000-token window; left out the oldest turn (1 message) even after compaction"},
	}
	for _, c := range cases {
		if got := Trim(&c.info); got != c.want {
			t.Errorf("got  %s\nwant %s", got, c.want)
		}
	}
}
