package oneline

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"gopi/pkg/loop"
)

// Spinner is the frames of the spinner that turns before a line of what
// is running (print mode's progress line, the chat's live row).
var Spinner = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// Text shortens text to its first line and at most n characters; " …"
// says more lines followed, "…" that the line was cut.
func Text(text string, n int) string {
	text = strings.TrimSpace(text)
	first, rest, more := strings.Cut(text, "\n")
	first = strings.TrimSpace(first)
	if utf8.RuneCountInString(first) > n {
		for i := range first { // cut before the n-th rune
			if n--; n == 0 {
				return first[:i] + "…"
			}
		}
		return first + "…"
	}
	if more && strings.TrimSpace(rest) != "" {
		return first + " …"
	}
	return first
}

// KeyArgument shows the argument that says most about a call (": " and
// its command, path or pattern, made printable), or "".
func KeyArgument(args json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return ""
	}
	for _, k := range []string{"command", "path", "pattern"} {
		if v, ok := m[k].(string); ok {
			return ": " + printable(v, 60)
		}
	}
	return ""
}

// printable makes s safe for one terminal line: control characters (new
// lines, escape sequences) become spaces, and it is cut at n runes.
func printable(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// Trim says what a request left out of the conversation, and why.
func Trim(t *loop.TrimInfo) string {
	why := "because compaction is disabled"
	switch t.Reason {
	case loop.TrimCompactionFailed:
		why = "because compaction failed: " + t.ErrorMessage
	case loop.TrimAfterCompaction:
		why = "even after compaction"
	}
	turns := "turn"
	if t.Turns != 1 {
		turns = fmt.Sprintf("%d turns", t.Turns)
	}
	messages := "messages"
	if t.Messages == 1 {
		messages = "message"
	}
	return fmt.Sprintf("the conversation does not fit the model's %d-token window; left out the oldest %s (%d %s) %s",
		t.ContextWindow, turns, t.Messages, messages, why)
}
