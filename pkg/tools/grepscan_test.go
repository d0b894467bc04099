package tools

import (
	"bytes"
	"context"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/bmatcuk/doublestar/v4"
)

// lineAtoms are what the random lines are made of: ASCII words in both
// cases, letters whose case folding leaves ASCII (Kelvin sign, long s),
// accented letters, carriage returns, tabs, brackets, digits, bad UTF-8.
var lineAtoms = []string{"a", "b", "e", "k", "K", "s", "S", "x", "y", "z", "ab", "cd", "Context", "context(", "func ",
	"needle", "NEEDLE", "Needle", " ", "\t", "\r", "(", ")", "$", ".", "_", "0", "42", "\u212a", "\u017f", "é", "É", "ß",
	"\xff", "\xe2\x82", "mask", "MASK", "strasse", "e$", "x*"}

func randomText(r *rand.Rand, lines int) []byte {
	var b bytes.Buffer
	for i := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		for range r.IntN(12) {
			b.WriteString(lineAtoms[r.IntN(len(lineAtoms))])
		}
		if r.IntN(6) == 0 {
			b.WriteByte('\r')
		}
	}
	if r.IntN(2) == 0 {
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// naiveHits are the numbers of the lines grep matches, one line at a time.
func naiveHits(re *regexp.Regexp, buf []byte) []int {
	var out []int
	for i, line := range bytes.Split(buf, []byte{'\n'}) {
		if re.Match(grepLine(line)) {
			out = append(out, i+1)
		}
	}
	return out
}

// TestFindHitsStrategies pins each way findHits picks candidate lines
// (the required literals, the wide pattern over the whole buffer, every
// line) to the line-by-line answer, on random text and patterns, with
// long lines among them.
func TestFindHitsStrategies(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	long := strings.Repeat("ab ", grepMaxLineBytes/3) + "needle e"
	n := 3000
	if raceOn {
		n = 500
	}
	for i := range n {
		a := grepArgs{Pattern: diffPatterns[r.IntN(len(diffPatterns))], Literal: r.IntN(3) == 0, IgnoreCase: r.IntN(3) == 0}
		if r.IntN(3) == 0 {
			a.Pattern = lineAtoms[r.IntN(len(lineAtoms))] + diffPatterns[r.IntN(len(diffPatterns))]
		}
		re, msg := a.compile()
		if msg != "" {
			continue
		}
		buf := randomText(r, 1+r.IntN(20))
		if i%50 == 0 {
			buf = append(append(buf, '\n'), long...)
		}
		want := naiveHits(re, buf)
		spec := newGrepSpec(re, a.expr(), 1<<30, 0, nil)
		lits, wide, ends, dollar := spec.lits, spec.wide, spec.ends, spec.dollar
		if wide == nil {
			wide, ends, dollar = widePattern(a.expr())
		}
		for _, s := range []struct {
			name string
			spec grepSpec
		}{
			{"literals", grepSpec{re: re, lits: lits, limit: 1 << 30}},
			{"wide", grepSpec{re: re, wide: wide, ends: ends, dollar: dollar, limit: 1 << 30}},
			{"every line", grepSpec{re: re, limit: 1 << 30}},
		} {
			if s.name == "literals" && lits == nil || s.name == "wide" && wide == nil {
				continue
			}
			w := newGrepWorker(&s.spec)
			if err := w.findHits(context.Background(), buf); err != nil {
				t.Fatal(err)
			}
			var got []int
			for _, h := range w.hits {
				got = append(got, h.n)
			}
			if !slices.Equal(got, want) || w.total != len(want) {
				t.Fatalf("%s, %q (literals %v): got lines %v (%d), want %v\ntext %q", s.name, a.expr(), lits, got, w.total, want, clip(string(buf)))
			}
		}
	}
}

// TestRequiredLiterals pins what the analysis finds for typical patterns.
func TestRequiredLiterals(t *testing.T) {
	tests := []struct {
		expr string
		want []lit
	}{
		{`func \w+Context\(`, []lit{{s: "Context("}}},
		{`(?i)errTimeout`, []lit{{s: "errtimeout", fold: true}}},
		{`(?i)mask`, []lit{{s: "ma", fold: true}}},
		{`read|write`, []lit{{s: "read"}, {s: "write"}}},
		{`(read|write)Buffer`, []lit{{s: "readBuffer"}, {s: "writeBuffer"}}},
		{`[Cc]ontext`, []lit{{s: "context", fold: true}}},
		{`a+b`, []lit{{s: "a"}}},
		{`\d+`, nil},
		{`x*`, nil},
		{`a|\w`, nil},
		{``, nil},
	}
	for _, tc := range tests {
		re, err := syntaxParse(tc.expr)
		if err != nil {
			t.Fatal(err)
		}
		if got := requiredLits(re); !slices.Equal(got, tc.want) {
			t.Errorf("%q: got %v, want %v", tc.expr, got, tc.want)
		}
	}
}

// TestCompiledGlobMatchesDoublestar pins the fast paths of compileGlob to
// doublestar.Match.
func TestCompiledGlobMatchesDoublestar(t *testing.T) {
	patterns := []string{"*.go", "*.log", "build", "a/b", "*", "*.", "*go", ".*", "**", "*.{go,txt}", "x/*", "*_test.go",
		"[ab]*", `\*.go`, "keep.tmp", "*.tmp", "}", "]", "a}b", "*.t]", "*.tx{t"}
	targets := []string{"a.go", ".go", "go", "x.log", "build", "a/b", "a/b.go", "b.go/c", "", "x.", "ago", ".hidden",
		"x/y.go", "a_test.go", "*.go", "keep.tmp", "}", "]", "a}b", "x.t]", "dir/a.go"}
	for _, p := range patterns {
		if !doublestar.ValidatePattern(p) {
			continue
		}
		g := compileGlob(p)
		for _, target := range targets {
			want, _ := doublestar.Match(p, target)
			if got := g.Match(target); got != want {
				t.Errorf("%q on %q: got %v, doublestar says %v", p, target, got, want)
			}
		}
	}
}
