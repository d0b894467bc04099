package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSecretsScrub(t *testing.T) {
	s := NewSecrets(
		Secret{"ANTHROPIC_API_KEY", "sk-ant-0123456789"},
		Secret{"LONGER", "sk-ant-0123456789-and-more"},
		Secret{"SHORT", "abc1234"},           // under MinSecretLen: kept
		Secret{"AGAIN", "sk-ant-0123456789"}, // the first name wins
		Secret{"QUOTED", `pa"ss<word>\x`},
	)
	tests := []struct{ in, want string }{
		{"key=sk-ant-0123456789.", "key=[REDACTED:ANTHROPIC_API_KEY]."},
		{"sk-ant-0123456789sk-ant-0123456789", "[REDACTED:ANTHROPIC_API_KEY][REDACTED:ANTHROPIC_API_KEY]"},
		{"x sk-ant-0123456789-and-more y", "x [REDACTED:LONGER] y"},
		{"abc1234 stays", "abc1234 stays"},
		{"nothing here", "nothing here"},
		{`raw pa"ss<word>\x json "pa\"ss\u003cword\u003e\\x" plain json "pa\"ss<word>\\x"`,
			`raw [REDACTED:QUOTED] json "[REDACTED:QUOTED]" plain json "[REDACTED:QUOTED]"`},
	}
	for _, tc := range tests {
		if got := s.Scrub(tc.in); got != tc.want {
			t.Errorf("Scrub(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	var none *Secrets
	if got := none.Scrub("sk-ant-0123456789"); got != "sk-ant-0123456789" || none.Len() != 0 {
		t.Errorf("nil Secrets changed the text: %q", got)
	}
}

// TestScrubStreamSplits pins the streaming replacer: however the output
// is cut into writes, what comes out is what Scrub makes of the whole.
func TestScrubStreamSplits(t *testing.T) {
	s := NewSecrets(Secret{"A", "sk-ant-0123456789"}, Secret{"B", "0123456789-tail-of-b"}, Secret{"C", "ghp_zzzzzzzz"})
	text := "start sk-ant-0123456789 mid 0123456789-tail-of-b ghp_zzzzzzzghp_zzzzzzzz sk-ant-012345678 end sk-ant-0123456789"
	want := s.Scrub(text)
	if strings.Contains(want, "sk-ant-0123456789 ") || strings.Contains(want, "ghp_zzzzzzzz") {
		t.Fatalf("Scrub left a secret: %q", want)
	}
	for i := 0; i <= len(text); i++ {
		for j := i; j <= len(text); j += 7 {
			var out strings.Builder
			st := s.Stream(func(p []byte) { out.Write(p) })
			st.Write([]byte(text[:i]))
			st.Write([]byte(text[i:j]))
			st.Write([]byte(text[j:]))
			st.Flush()
			if out.String() != want {
				t.Fatalf("split at %d,%d: got %q, want %q", i, j, out.String(), want)
			}
		}
	}
	var out strings.Builder
	byByte := s.Stream(func(p []byte) { out.Write(p) })
	for i := range len(text) {
		byByte.Write([]byte{text[i]})
	}
	byByte.Flush()
	if out.String() != want {
		t.Errorf("byte by byte: got %q, want %q", out.String(), want)
	}
}

// TestGrepScrubsBeforeCutting: grep cuts long lines at 500 characters; a
// key across the cut must not leave its first half behind.
func TestGrepScrubsBeforeCutting(t *testing.T) {
	const key = "sk-ant-HALFHALFHALF"
	env := testEnv(t)
	env.Secrets = NewSecrets(Secret{Name: "ANTHROPIC_API_KEY", Value: key})
	line := strings.Repeat("x", 490) + key + strings.Repeat("y", 100)
	if err := os.WriteFile(filepath.Join(env.Cwd, "env.txt"), []byte(line+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	res := runTool(t, env, NewGrep(), map[string]any{"pattern": "x", "path": "env.txt"})
	if got := text(res); res.IsError || strings.Contains(got, "sk-ant") || !strings.Contains(got, "xxx[REDACTED:") {
		t.Errorf("got %q", got)
	}
}

// TestScrubStreamHoldsOnlyASecretsStart pins what the stream keeps back:
// only an end of the output that may still become a secret, so a line
// of output goes on as soon as it is written, however long the keys.
func TestScrubStreamHoldsOnlyASecretsStart(t *testing.T) {
	key := "sk-ant-api03-" + strings.Repeat("k", 95) // 108 bytes, as a real key
	s := NewSecrets(Secret{"ANTHROPIC_API_KEY", key}, Secret{"OTHER", "ghp_0123456789"})
	var out strings.Builder
	st := s.Stream(func(p []byte) { out.Write(p) })
	steps := []struct{ write, want string }{
		{"building...\n", "building...\n"},                // no secret's start pending: all of it at once
		{"compiled 3 files\nsk-an", "compiled 3 files\n"}, // "sk-an" may begin the key
		{"t-api03-" + strings.Repeat("k", 40), ""},        // still the key's beginning
		{strings.Repeat("k", 55) + " done\ngh", "[REDACTED:ANTHROPIC_API_KEY] done\n"},
		{"x\n", "ghx\n"}, // "gh" did not become ghp_…
		{"sk-ant-api03-x\n", "sk-ant-api03-x\n"},
	}
	for i, step := range steps {
		out.Reset()
		st.Write([]byte(step.write))
		if out.String() != step.want {
			t.Fatalf("write %d (%q): emitted %q, want %q", i, step.write, out.String(), step.want)
		}
	}
	out.Reset()
	st.Write([]byte("tail ghp_0123"))
	st.Flush()
	if out.String() != "tail ghp_0123" {
		t.Errorf("flush: got %q", out.String())
	}
}
