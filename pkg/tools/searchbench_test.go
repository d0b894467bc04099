package tools

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"gopi/pkg/ai"
)

// benchTree names a folder for the benchmarks' tree, kept between runs so
// ripgrep, GNU grep and find can be timed on the very same files:
//
//	go test -run '^$' -bench SearchTree ./pkg/tools -args -benchtree /tmp/gopi-tree
//	rg -n --hidden 'func \w+Context\(' /tmp/gopi-tree
var benchTree = flag.String("benchtree", "", "folder for the search benchmarks' generated tree (kept; made when missing)")

// benchFiles is the size of the benchmarks' tree, about the number of
// files in Go's own source tree.
const benchFiles = 11000

// searchBenchTree makes (or reuses) the benchmark tree.
func searchBenchTree(b *testing.B) string {
	b.Helper()
	root := *benchTree
	if root == "" {
		root = b.TempDir()
	}
	marker := filepath.Join(root, ".gopi-tree-done")
	if _, err := os.Stat(marker); err == nil {
		return root
	}
	os.MkdirAll(filepath.Join(root, ".git"), 0o755) // ripgrep reads .gitignore only in a repository
	genTree(b, root, benchFiles, 1)
	if err := os.WriteFile(marker, nil, 0o644); err != nil {
		b.Fatal(err)
	}
	return root
}

// searchBenchCases are what the benchmarks look for: a regex, a literal and
// a case-insensitive literal, each with fewer matches than grep's default
// limit so the whole tree is searched; and a find.
var searchBenchCases = []struct {
	name string
	tool string
	args map[string]any
	rg   []string // ripgrep's arguments for the same search
	gnu  []string // GNU grep's or find's
}{
	{"regex", "grep", map[string]any{"pattern": `func \w+Context\(`},
		[]string{"-n", "--hidden", `func \w+Context\(`}, []string{"-rnIP", `func \w+Context\(`}},
	{"literal", "grep", map[string]any{"pattern": "deadlineBudgetExceeded(", "literal": true},
		[]string{"-n", "--hidden", "-F", "deadlineBudgetExceeded("}, []string{"-rnIF", "deadlineBudgetExceeded("}},
	{"ignorecase", "grep", map[string]any{"pattern": "errtimeoutbudget or", "literal": true, "ignoreCase": true},
		[]string{"-n", "--hidden", "-F", "-i", "errtimeoutbudget or"}, []string{"-rnIFi", "errtimeoutbudget or"}},
	{"find", "find", map[string]any{"pattern": "*.go", "limit": 100000},
		nil, []string{".", "-name", "*.go"}},
}

// BenchmarkSearchTree times gopi's grep and find in-process on the
// generated tree and, where installed, ripgrep, GNU grep and GNU find on
// the same tree (as whole processes), so the figures sit side by side.
func BenchmarkSearchTree(b *testing.B) {
	root := searchBenchTree(b)
	env := &Env{Cwd: root, Environ: []string{"HOME=" + root}, TempDir: b.TempDir()}
	for _, tc := range searchBenchCases {
		b.Run("gopi/"+tc.name, func(b *testing.B) {
			tool := map[string]Tool{"grep": NewGrep(), "find": NewFind()}[tc.tool]
			raw, _ := json.Marshal(tc.args)
			call := Call{ID: "c", Args: raw, Env: env}
			for b.Loop() {
				res, err := tool.Run(context.Background(), call)
				if err != nil || res.IsError || len(res.Content) == 0 || res.Content[0].Type != ai.TypeText {
					b.Fatalf("%v %v", err, res)
				}
			}
		})
		native := map[string][]string{"rg": tc.rg, "grep": tc.gnu}
		if tc.tool == "find" {
			native = map[string][]string{"find": tc.gnu}
		}
		for _, name := range []string{"rg", "grep", "find"} {
			args := native[name]
			if args == nil {
				continue
			}
			if _, err := exec.LookPath(name); err != nil {
				continue // the native tool is not installed: nothing to compare with
			}
			b.Run(name+"/"+tc.name, func(b *testing.B) {
				for b.Loop() {
					cmd := exec.Command(name, args...)
					cmd.Dir = root
					if out, err := cmd.Output(); err != nil || len(out) == 0 {
						b.Fatalf("%s: %v", name, err)
					}
				}
			})
		}
	}
}
