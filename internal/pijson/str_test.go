package pijson

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// AppendString writes every string as valid JSON that decodes to the
// string itself, each invalid UTF-8 byte read as U+FFFD, and escapes only
// what JSON.stringify escapes.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain ascii text of some length", "tab\there\nnew \"q\" \\ /", "\x00\x1f\x7f",
		"é日本🎉 \u2028\u2029", "bad \xff\xfe\xe2\x80 cut", strings.Repeat("abcdefg\"", 9), "12345678\n12345678é", `literal \u0041 text`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := AppendString([]byte("x"), s)
		if out[0] != 'x' {
			t.Fatal("the prefix was overwritten")
		}
		out = out[1:]
		var got string
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("%q → %s: %v", s, out, err)
		}
		var want strings.Builder
		for i := 0; i < len(s); {
			r, n := utf8.DecodeRuneInString(s[i:])
			want.WriteRune(r) // RuneError for an invalid byte
			i += n
		}
		if got != want.String() {
			t.Fatalf("%q → %s decodes to %q", s, out, got)
		}
		uEscapes := 0
		for i := 0; i < len(out); i++ {
			if out[i] < 0x20 {
				t.Fatalf("raw control byte in %s", out)
			}
			if out[i] == '\\' {
				i++
				if !strings.ContainsRune(`"\bfnrtu`, rune(out[i])) {
					t.Fatalf("escape \\%c in %s", out[i], out)
				}
				if out[i] == 'u' {
					uEscapes++
				}
			}
		}
		controls := 0
		for _, c := range []byte(s) {
			if c < 0x20 && !strings.ContainsRune("\b\f\n\r\t", rune(c)) {
				controls++
			}
		}
		if uEscapes != controls {
			t.Fatalf("%d \\u escapes in %s for %d control characters", uEscapes, out, controls)
		}
	})
}
