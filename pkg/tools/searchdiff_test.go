package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// edgeFiles adds the files where a whole-buffer search could part from the
// line-by-line one: CRLF and lone CR, no final newline, empty files and
// empty last lines, a NUL just past the first block, case-folding letters beyond ASCII,
// invalid UTF-8, gitignore negations and anchors, .git folders and files,
// symbolic links and a key to scrub.
func edgeFiles(t *testing.T, root string) {
	t.Helper()
	tree(t, root, map[string]string{
		"crlf.txt":            "one\r\ntwo\r\n\r\nthree\r\r\nfour\rfive\r\n",
		"nonl.txt":            "alpha\nbeta",
		"empty.txt":           "",
		"nl.txt":              "\n",
		"blank.txt":           "a\n\n\nb\n\n",
		"late.bin":            strings.Repeat("x\n", sniffBytes/2) + "\x00needle\n",
		"early.bin":           "ab\x00needle\n",
		"fold.txt":            "KELVIN \u212a sign\nlong \u017f s\nMask mask MASK\nStra\u00dfe STRASSE\n\u00c9t\u00e9 \u00e9t\u00e9\n",
		"bad.txt":             "in\xffvalid \xe2\x82\nutf\xc3\n",
		"key.txt":             "token=sk-test-SECRETSECRET here\n",
		"sub/.gitignore":      "*.gen\n!keep.gen\n/only/\nnested/deep.txt\n",
		"sub/a.gen":           "needle gen\n",
		"sub/keep.gen":        "needle keep\n",
		"sub/only/x.txt":      "needle only\n",
		"sub/z/only/y.txt":    "needle not anchored\n",
		"sub/nested/deep.txt": "needle deep\n",
		"sub/.git/HEAD":       "needle git\n",
		"wt/.git":             "gitdir: needle\n",
		"x/[a].txt":           "needle bracket\n",
		"x/{b}.txt":           "needle brace\n",
		"x/sp ace.txt":        "needle space\n",
	})
	os.Symlink("crlf.txt", filepath.Join(root, "link.txt"))
	os.Symlink("sub", filepath.Join(root, "linkdir"))
}

// longFiles has lines longer than grep reads, with text at the cut.
func longFiles(t *testing.T, root string) {
	t.Helper()
	cut := strings.Repeat("ab cd ", grepMaxLineBytes/6+2) + "xy"
	tree(t, root, map[string]string{
		"long.txt": "first\n" + cut + "\n" + cut[:grepMaxLineBytes-2] + "e$\nafter " + strings.Repeat("z", grepMaxLineBytes) +
			"tail\n" + cut[:grepMaxLineBytes-1] + "eZ\nlast\n",
		"crcut.txt": cut[:grepMaxLineBytes-1] + "\r" + "rest\n",
	})
}

// diffPatterns are the building blocks of the random patterns.
var diffPatterns = []string{
	"needle", "one", "e", "", "^", "$", "^$", `\w+Context\(`, `func \w+`, "ab cd", "xy$", `e\$`, "e$", `\bab\b`,
	"z+tail", "^after", "tail$", "(?i)kelvin", "(?i)k", "(?i)mask", "(?i)strasse", "(?i)été", "STRASSE|Stra", "[Kk]", `\x{212a}`,
	`\s$`, `\r`, `[^a]$`, `(?s).`, `(?m)^t`, `\Aone\z`, "four.five", `a\nb`, "[^x]*y", `\d+`, "sk-test", "SECRET",
	"read|write|walk", "(read|write)Buffer", "(?i)errtimeoutbudget", "deadlineBudgetExceeded", `\.`, "x*", "a{2,}",
	"[[:upper:]]{3}", `\pL+`, "func|}", "ctx", `(?U)a+?`, "[Cc]ontext", "Context(", "(paren)",
	"$^", "a$|^b", `\b$`, `$\b`, `(?m)$^`, "^$", `\z\A`, "x*$", `\B$`, `^\b`, `[\r]$`, `\r$`, `(?s:.)$`,
}

// randomGrepArgs draws one grep call.
func randomGrepArgs(r *rand.Rand) map[string]any {
	p := diffPatterns[r.IntN(len(diffPatterns))]
	if r.IntN(4) == 0 {
		p += diffPatterns[r.IntN(len(diffPatterns))]
	}
	args := map[string]any{"pattern": p}
	switch r.IntN(4) {
	case 0:
		args["literal"] = true
	case 1:
		args["ignoreCase"] = true
	case 2:
		args["literal"], args["ignoreCase"] = true, true
	}
	if r.IntN(3) == 0 {
		args["context"] = []int{1, 2, 3, 7, 100}[r.IntN(5)]
	}
	if r.IntN(2) == 0 {
		args["limit"] = []int{1, 2, 3, 10, 50, 1000, 100000}[r.IntN(7)]
	}
	if r.IntN(5) == 0 {
		args["glob"] = []string{"*.go", "**/*.txt", "sub/**", "*.{txt,gen}", "[a-c]*", "x/*"}[r.IntN(6)]
	}
	if r.IntN(8) == 0 {
		args["path"] = []string{"crlf.txt", "nonl.txt", "sub", "fold.txt", "link.txt", "linkdir", "blank.txt"}[r.IntN(7)]
	}
	return args
}

// countNote is the count grep and find now add to their limit notice.
var countNote = regexp.MustCompile(` \((at least )?(\d+) in all\)`)

// TestGrepMatchesReference runs the grep tool and the line-by-line
// reference on generated trees with random patterns, options and limits:
// the output and details are identical, but for the count added to the
// limit notice, which must be a true lower bound (exact when it says so).
func TestGrepMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	seeds, cases := 3, 80
	if raceOn {
		seeds, cases = 1, 40
	}
	for seed := range uint64(seeds) {
		env := testEnv(t)
		env.Secrets = NewSecrets(Secret{Name: "KEY", Value: "sk-test-SECRETSECRET"})
		genTree(t, env.Cwd, 30+int(seed)*30, seed)
		edgeFiles(t, env.Cwd)
		for range cases {
			args := randomGrepArgs(r)
			got := runTool(t, env, NewGrep(), args)
			want := refGrep(context.Background(), callFor(env, args))
			compareWithCount(t, env, args, got, want)
		}
	}
}

// TestGrepByteBoundMatchesReference pins the byte bound: a search whose
// output passes twice the byte limit stops where the old one stopped,
// context blocks and all.
func TestGrepByteBoundMatchesReference(t *testing.T) {
	env := testEnv(t)
	genTree(t, env.Cwd, 300, 9)
	for _, ctxLines := range []int{0, 1, 4} {
		for _, p := range []string{"e", "err", "^\t", "}"} {
			args := map[string]any{"pattern": p, "limit": 100000, "context": ctxLines}
			got := runTool(t, env, NewGrep(), args)
			want := refGrep(context.Background(), callFor(env, args))
			compareWithCount(t, env, args, got, want)
		}
	}
}

// TestGrepLongLinesMatchReference: lines longer than grep reads are
// matched on their first grepMaxLineBytes, as before, whatever finds the
// candidates.
func TestGrepLongLinesMatchReference(t *testing.T) {
	env := testEnv(t)
	longFiles(t, env.Cwd)
	for _, p := range []string{"e$", `e\b`, `\Be$`, "xy", "xy$", "ab cd", "tail", "^after", "z+tail", `\r`, `\r$`, "rest", "e", "$", "zz$", `\w$`, `[a-z]$`, `.\b`, `.$`, `\s\w`} {
		for _, c := range []int{0, 2} {
			args := map[string]any{"pattern": p, "context": c, "limit": 1000}
			compareWithCount(t, env, args, runTool(t, env, NewGrep(), args), refGrep(context.Background(), callFor(env, args)))
		}
	}
}

func callFor(env *Env, args map[string]any) Call {
	raw, _ := json.Marshal(args)
	return Call{ID: "c", Args: raw, Env: env}
}

// compareWithCount checks got against the reference want, and the count
// in got's limit notice against the reference run without a limit.
func compareWithCount(t *testing.T, env *Env, args map[string]any, got, want Result) {
	t.Helper()
	gotText := text(got)
	m := countNote.FindStringSubmatch(gotText)
	if gotText := countNote.ReplaceAllString(gotText, ""); gotText != text(want) || got.IsError != want.IsError {
		t.Fatalf("%v:\ngot  %q\nwant %q", args, clip(gotText), clip(text(want)))
	}
	if !reflect.DeepEqual(got.Details, want.Details) {
		t.Fatalf("%v: details %#v, want %#v", args, got.Details, want.Details)
	}
	if m == nil {
		return
	}
	n, _ := strconv.Atoi(m[2])
	all := map[string]any{}
	for k, v := range args {
		all[k] = v
	}
	all["context"] = 0
	total := refGrepCount(context.Background(), callFor(env, all))
	if m[1] == "" && n != total || n > total {
		t.Fatalf("%v: notice says %q, the reference finds %d matching lines", args, m[0], total)
	}
}

// TestFindMatchesReference does the same for find.
func TestFindMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	globs := []string{"*", "*.go", "**/*.txt", "sub/**", "*.{txt,gen}", "[a-c]*", "x/*", "**/only", ".*", "*_gen.go",
		"keep.*", "**", "*/*/*", "link*", "{a,b}*/**/*.go", "*[0-9].go", `\[a].txt`}
	for seed := range uint64(3) {
		env := testEnv(t)
		genTree(t, env.Cwd, 80+int(seed)*200, seed+20)
		edgeFiles(t, env.Cwd)
		for range 60 {
			args := map[string]any{"pattern": globs[r.IntN(len(globs))]}
			if r.IntN(2) == 0 {
				args["limit"] = []int{1, 5, 40, 1000, 5000}[r.IntN(5)]
			}
			if r.IntN(6) == 0 {
				args["path"] = []string{"sub", "x", "linkdir"}[r.IntN(3)]
			}
			got := runTool(t, env, NewFind(), args)
			want := refFind(context.Background(), callFor(env, args))
			gotText := countNote.ReplaceAllString(text(got), "")
			if gotText != text(want) || got.IsError != want.IsError || !reflect.DeepEqual(got.Details, want.Details) {
				t.Fatalf("%v:\ngot  %q\nwant %q", args, clip(text(got)), clip(text(want)))
			}
			if m := countNote.FindStringSubmatch(text(got)); m != nil {
				all := map[string]any{"pattern": args["pattern"], "path": args["path"], "limit": 1 << 30}
				total := strings.Count(text(refFind(context.Background(), callFor(env, all))), "\n") + 1
				if n, _ := strconv.Atoi(m[2]); m[1] == "" && n != total || n > total {
					t.Fatalf("%v: notice says %q, the reference finds %d", args, m[0], total)
				}
			}
		}
	}
}

// TestGrepLimitNoticeCount pins the count in the limit notice: exact for a
// file counted to its end, a lower bound past the counting budget, and
// for a tree at least what the file that reached the limit holds.
func TestGrepLimitNoticeCount(t *testing.T) {
	env := testEnv(t)
	tree(t, env.Cwd, map[string]string{
		"few.txt":   strings.Repeat("hit\nmiss\n", 500),
		"many.txt":  strings.Repeat("hit\n", 3*grepCountBudget),
		"d/a.txt":   "hit\nhit\n",
		"d/b.txt":   strings.Repeat("hit\n", 40),
		"d/c.txt":   "hit\n",
		"d/z/z.txt": "hit\n",
	})
	tests := []struct {
		args map[string]any
		note string
	}{
		{map[string]any{"pattern": "hit", "path": "few.txt", "limit": 10}, "[10 matches limit reached (500 in all). Use limit=20"},
		{map[string]any{"pattern": "hit", "path": "many.txt", "limit": 10}, fmt.Sprintf("[10 matches limit reached (at least %d in all).", 10+grepCountBudget)},
		{map[string]any{"pattern": "hit", "path": "d", "limit": 10}, "[10 matches limit reached (at least 42 in all). Use limit=20"},
		{map[string]any{"pattern": "hit", "path": "d", "limit": 2}, "[2 matches limit reached. Use limit=4"},
	}
	for _, tc := range tests {
		wantContains(t, text(runTool(t, env, NewGrep(), tc.args)), tc.note)
	}
}

// stopAfter is a context cancelled by the n+1st call of its Err, so a
// search is cancelled midway at a point that does not depend on timing.
type stopAfter struct {
	context.Context
	cancel context.CancelFunc
	n      atomic.Int64
}

func newStopAfter(n int64) *stopAfter {
	ctx, cancel := context.WithCancel(context.Background())
	c := &stopAfter{Context: ctx, cancel: cancel}
	c.n.Store(n)
	return c
}

func (c *stopAfter) Err() error {
	if c.n.Add(-1) < 0 {
		c.cancel()
	}
	return c.Context.Err()
}

// TestSearchCancelledMidway: grep and find cancelled while they walk and
// search report the abort, and leave no goroutine behind (TestMain's
// goleak checks).
func TestSearchCancelledMidway(t *testing.T) {
	env := testEnv(t)
	genTree(t, env.Cwd, 400, 5)
	for _, n := range []int64{0, 5, 50, 300} {
		for _, tool := range []Tool{NewGrep(), NewFind()} {
			ctx := newStopAfter(n)
			args := map[string]any{"pattern": "no such text", "limit": 1 << 20}
			if tool.Spec().Name == "find" {
				args["pattern"] = "*"
			}
			res := runToolCtx(t, ctx, env, tool, args, nil)
			if !res.IsError || text(res) != errAborted {
				t.Errorf("%s cancelled after %d checks: %v %q", tool.Spec().Name, n, res.IsError, clip(text(res)))
			}
		}
	}
}
