package tools

import (
	"context"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

// TestBashOutputStream pins WithOutput: the pieces joined are the whole
// output (also past the tail a result keeps), keys scrubbed even when
// split across writes, every piece valid UTF-8 with a character split
// across writes kept whole, and the last piece in before Run returns.
func TestBashOutputStream(t *testing.T) {
	env := testEnv(t)
	env.Secrets = NewSecrets(Secret{Name: "ANTHROPIC_API_KEY", Value: "sk-ant-api03-SECRETSECRET"})
	var seq strings.Builder
	for i := 1; i <= 3000; i++ {
		seq.WriteString(strings.Repeat("x", 30) + "\n")
	}
	cases := []struct{ name, cmd, want string }{
		{"short", "echo from bash; echo line two", "from bash\nline two\n"},
		{"past the tail", "for i in $(seq 1 3000); do echo " + strings.Repeat("x", 30) + "; done", seq.String()},
		{"key split across writes", "printf 'a sk-ant-api03-SEC'; sleep 0.05; printf 'RETSECRET b\n'", "a [REDACTED:ANTHROPIC_API_KEY] b\n"},
		{"character split across writes", `printf 'caf\303'; sleep 0.05; printf '\251!'`, "café!"},
		{"invalid byte", `printf 'a\377b'`, "a\uFFFDb"},
		{"held back at the end", "printf 'tail sk-ant-api03'", "tail sk-ant-api03"},
		{"none", "true", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var pieces []string
			ctx := WithOutput(context.Background(), func(s string) {
				mu.Lock()
				pieces = append(pieces, s)
				mu.Unlock()
			})
			res := runToolCtx(t, ctx, env, NewBash(Options{}), map[string]any{"command": tc.cmd}, nil)
			mu.Lock()
			got := strings.Join(pieces, "")
			n := len(pieces)
			mu.Unlock()
			if res.IsError {
				t.Fatalf("error result %q", text(res))
			}
			if got != tc.want {
				t.Errorf("%d pieces joined: %d bytes, want %d\n got %q\nwant %q", n, len(got), len(tc.want), trimMid(got), trimMid(tc.want))
			}
			for _, p := range pieces {
				if p == "" || !utf8.ValidString(p) {
					t.Errorf("piece %q: empty or not valid UTF-8", p)
				}
			}
		})
	}
}

func trimMid(s string) string {
	if len(s) <= 120 {
		return s
	}
	return s[:60] + "…" + s[len(s)-60:]
}

// TestRuneCut pins the cut between characters byte by byte: "é" (2
// bytes), "€" (3) and "😀" (4) written one byte at a time come out whole,
// and a lone lead byte at the end comes out as U+FFFD.
func TestRuneCut(t *testing.T) {
	var got []string
	c := &runeCut{out: func(s string) { got = append(got, s) }}
	for _, b := range []byte("é€😀a\xe2") {
		c.write([]byte{b})
	}
	c.flush()
	want := []string{"é", "€", "😀", "a", "\uFFFD"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, want %q", got, want)
	}
}
