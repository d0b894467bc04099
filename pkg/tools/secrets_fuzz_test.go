package tools

import (
	"strings"
	"testing"
)

// FuzzScrubStream: a stream cut anywhere, into any pieces, comes out as
// Scrub makes the whole text: holding back only what may still become a
// secret loses no redaction and invents none.
func FuzzScrubStream(f *testing.F) {
	f.Add("sk-ant-0123456789", "other-secret-value", "x sk-ant-0123456789 y sk-ant-01234 other-secret-valu", uint8(3))
	f.Add("aaaaaaaaaa", "aaaaaaaaab", "aaaaaaaaaaaaaaaaaaab", uint8(1))
	f.Add(`pa"ss<word>\x`, "0123456789", `"pa\"ss\u003cword\u003e\\x" 012345678`, uint8(5))
	f.Fuzz(func(t *testing.T, a, b, text string, step uint8) {
		s := NewSecrets(Secret{"A", a}, Secret{"B", b})
		want := s.Scrub(text)
		var got strings.Builder
		st := s.Stream(func(p []byte) { got.Write(p) })
		n := int(step%17) + 1
		for i := 0; i < len(text); i += n {
			st.Write([]byte(text[i:min(i+n, len(text))]))
		}
		st.Flush()
		if got.String() != want {
			t.Fatalf("secrets %q %q, text %q in pieces of %d:\nstream %q\nscrub  %q", a, b, text, n, got.String(), want)
		}
	})
}
