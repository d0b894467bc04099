package session

import (
	"strings"
	"testing"
	"unicode/utf8"

	"gopi/pkg/ai"
)

// estimateSamples are texts whose code points are counted word by word
// and one by one: ASCII runs of every length around a word, multi-byte
// runes at every offset, and invalid UTF-8 (each bad byte one character).
var estimateSamples = []string{
	"", "a", "abcdefg", "abcdefgh", "abcdefghi", strings.Repeat("lorem ipsum ", 100),
	"é", "aé", "abcdefgé", "abcdefghé", "日本語のテキスト", "mixed ascii and 日本 and emoji 🎉 text",
	"\xff", "abc\xffdefghijk", "\xe6\x97", "abcdefgh\xe6\x97", "\x80\x80\x80\x80\x80\x80\x80\x80\x80",
	strings.Repeat("x", 7) + "\U0001F600" + strings.Repeat("y", 15) + "\xc3",
	strings.Repeat("x", 31) + "é" + strings.Repeat("y", 32) + "\xff" + strings.Repeat("z", 40),
	strings.Repeat("x", 32) + "日" + strings.Repeat("y", 63) + "\xe6\x97" + strings.Repeat("z", 33),
}

// EstimateTokens counts characters as Unicode code points, as
// utf8.RuneCountInString does, however the text is laid out.
func TestEstimateTokensCountsCodePoints(t *testing.T) {
	t.Parallel()
	for _, s := range estimateSamples {
		for pre := range 9 {
			text := strings.Repeat("p", pre) + s
			want := (utf8.RuneCountInString(text) + utf8.RuneCountInString(s) + 3) / 4
			m := ai.Message{Role: ai.RoleAssistant, Content: []ai.Content{ai.TextContent(text), {Type: ai.TypeThinking, Thinking: s}}}
			if got := EstimateTokens(m); got != want {
				t.Errorf("EstimateTokens(%q, %q) = %d, want %d", text, s, got, want)
			}
		}
	}
}

func FuzzEstimateTokens(f *testing.F) {
	for _, s := range estimateSamples {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := EstimateTokens(ai.UserText(s, 1)), (utf8.RuneCountInString(s)+3)/4; got != want {
			t.Errorf("EstimateTokens(%q) = %d, want %d", s, got, want)
		}
	})
}
