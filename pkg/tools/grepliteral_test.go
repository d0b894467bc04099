package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The literals grep looks for before running the regexp must be ones every
// match holds, and a literal hit must still be decided by the regexp: for
// patterns whose literals are only part of a match (a required run after
// a repetition, an alternation, a class, a repeat, an optional letter,
// case folding), grep finds exactly the lines the line-by-line reference
// finds, no more and no fewer.
func TestGrepLiteralsAreOnlyAFilter(t *testing.T) {
	env := testEnv(t)
	lines := "xbar\n1bar\n22bar\nfoox\nfoo7\nababc\nabc\nab\nzz yz\nxyz\nyz\naab\naaab\naaaab\nAbc\nABC\nabd\ncd\nHELLO\nhello there\n" +
		"a word here\nswordfish\nwords\nbaz\nbar\nqax\nq\nx\nfoooor\nfor\nbaoor\nabcd\nacd\nxzz\nyzz\nzz\nxxyz\naaa bbb\n"
	if err := os.WriteFile(filepath.Join(env.Cwd, "lines.txt"), []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	patterns := []string{`\d+bar`, `foo\d`, `(ab)+c`, `x*yz`, `a{2,3}b`, `[Aa]bc`, `ab|cd`, `(?i)hello`, `^abc$`, `\bword\b`,
		`ba[rz]`, `q.x`, `(fo|ba)o+r`, `abc?d`, `[xy]z{2}`, `a+b`, `b{3}`, `(?i)abc`, `x+yz`, `o{2,}r`}
	found := 0
	for _, p := range patterns {
		for _, fold := range []bool{false, true} {
			args := map[string]any{"pattern": p}
			if fold {
				args["ignoreCase"] = true
			}
			got := runTool(t, env, NewGrep(), args)
			want := refGrep(context.Background(), callFor(env, args))
			if strings.Contains(text(want), "lines.txt:") {
				found++
			}
			if text(got) != text(want) {
				t.Errorf("grep %q (ignoreCase %v):\n got %q\nwant %q", p, fold, text(got), text(want))
			}
		}
	}
	if found < 2*len(patterns)-2 {
		t.Errorf("only %d of %d searches found lines: the file does not exercise the patterns", found, 2*len(patterns))
	}
}

// TestGrepLiteralAfterAFalseStart pins the search for a literal's rarest
// byte: when one occurrence of that byte starts no match, the very next
// byte may start one ("qqz" holds "qz" at 1), so the search goes on one
// byte further, not two, in exact and in folded search.
func TestGrepLiteralAfterAFalseStart(t *testing.T) {
	env := testEnv(t)
	if err := os.WriteFile(filepath.Join(env.Cwd, "pairs.txt"), []byte("qqz\nzzq\nQQZ\nZZQ\nkkkx\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		pattern string
		fold    bool
		want    string
	}{
		{"qz", false, "pairs.txt:1: qqz"},
		{"zq", false, "pairs.txt:2: zzq"},
		{"kkx", false, "pairs.txt:5: kkkx"},
		{"qz", true, "pairs.txt:1: qqz\npairs.txt:3: QQZ"},
		{"ZQ", true, "pairs.txt:2: zzq\npairs.txt:4: ZZQ"},
		{"kKx", true, "pairs.txt:5: kkkx"},
	} {
		args := map[string]any{"pattern": tc.pattern, "literal": true}
		if tc.fold {
			args["ignoreCase"] = true
		}
		if got := text(runTool(t, env, NewGrep(), args)); got != tc.want {
			t.Errorf("grep %q (ignoreCase %v) = %q, want %q", tc.pattern, tc.fold, got, tc.want)
		}
	}
}
