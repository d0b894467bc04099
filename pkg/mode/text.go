package mode

import (
	"strings"
	"unicode/utf8"

	"gopi/pkg/ai"
)

// OneLine shortens text to its first line and at most n characters.
func OneLine(text string, n int) string {
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

// ContextTokens is how full the context was at the last answer that
// counted tokens (input, cached, output, as pi's footer counts them).
func ContextTokens(msgs []ai.Message) (int64, bool) {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != ai.RoleAssistant {
			continue
		}
		u := msgs[i].Usage
		if n := u.Input + u.Output + u.CacheRead + u.CacheWrite; n > 0 {
			return n, true
		}
	}
	return 0, false
}
