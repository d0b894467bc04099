package pijson

import (
	"bytes"
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
		if n := QuotedLen(s); n != len(out)-1 {
			t.Fatalf("QuotedLen(%q) = %d, AppendString wrote %d bytes", s, n, len(out)-1)
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

// Strings are scanned eight and sixteen bytes at a time: a byte that needs
// attention (an escape, a control character, a quote, non-ASCII or invalid
// UTF-8) is found at every position of the words, alone or after another,
// and every reader agrees with encoding/json.
func TestSpecialAtEveryPosition(t *testing.T) {
	specials := []string{`\n`, `\"`, `\\`, `\u00e9`, `\ud83d\ude00`, `\ud800`, "\x01", "\x1f", "\"", "é", "\xff", "\xe2\x80", "\x7f", `\q`, `\u12`}
	for _, sp := range specials {
		for _, second := range []string{"", sp, `\t`, "\x00"} {
			for pos := range 40 {
				body := strings.Repeat("a", pos) + sp + strings.Repeat("b", pos%9) + second + strings.Repeat("c", 40-pos)
				checkString(t, []byte(`"`+body+`"`))
				checkString(t, []byte(`"`+body)) // unterminated
			}
		}
	}
}

// checkString checks Unquote, Validate, Fields and String on a string
// token against encoding/json, and AppendString on its value.
func checkString(t *testing.T, tok []byte) {
	t.Helper()
	var want string
	werr := json.Unmarshal(tok, &want)
	got, err := Unquote(tok)
	if (err == nil) != (werr == nil) || (err == nil && got != want) {
		t.Fatalf("Unquote(%q) = %q, %v; encoding/json: %q, %v", tok, got, err, want, werr)
	}
	if _, err := Validate(tok); (err == nil) != (werr == nil) {
		t.Fatalf("Validate(%q): %v; encoding/json: %v", tok, err, werr)
	}
	obj := append(append([]byte(`{"k":`), tok...), '}')
	fs, _, err := Fields(obj)
	if (err == nil) != (werr == nil) {
		t.Fatalf("Fields(%q): %v; encoding/json: %v", obj, err, werr)
	}
	if werr != nil {
		return
	}
	var s string
	if err := String("k", fs[0].Value, &s); err != nil || s != want {
		t.Fatalf("String(%q) = %q, %v; want %q", fs[0].Value, s, err, want)
	}
	sc := NewScanner(tok)
	v, plain, err := sc.Value()
	if err != nil || (plain && PlainString(v) != want) {
		t.Fatalf("Value(%q) = %q, %v, %v; want %q", tok, v, plain, err, want)
	}
	if plain != (bytes.IndexByte(tok[1:len(tok)-1], '\\') < 0 && isASCII(tok)) {
		t.Fatalf("Value(%q): plain %v", tok, plain)
	}
	enc := AppendString(nil, want)
	if n := QuotedLen(want); n != len(enc) {
		t.Fatalf("QuotedLen(%q) = %d, AppendString wrote %d bytes", want, n, len(enc))
	}
	var back string
	if err := json.Unmarshal(enc, &back); err != nil || back != want {
		t.Fatalf("AppendString(%q) = %s, which decodes to %q, %v", want, enc, back, err)
	}
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
