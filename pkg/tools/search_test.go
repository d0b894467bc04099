package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tree makes files (content by path) under root; a path ending in '/' is
// a folder.
func tree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(root, p)
		if strings.HasSuffix(p, "/") {
			os.MkdirAll(full, 0o755)
			continue
		}
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

var searchFiles = map[string]string{
	".gitignore":         "build/\n*.log\n!keep.log\n/rootonly.txt\n",
	".git/config":        "needle in git\n",
	".hidden":            "needle hidden\n",
	"a.go":               "package a\n// needle one\nfunc A() {}\n",
	"B.txt":              "no match\nNEEDLE upper\n",
	"keep.log":           "needle kept\n",
	"x.log":              "needle ignored\n",
	"rootonly.txt":       "needle rootonly\n",
	"build/out.go":       "needle build\n",
	"src/c.go":           "one\ntwo\nneedle three\nfour\nfive\n",
	"src/rootonly.txt":   "needle nested\n",
	"src/bin.dat":        "needle\x00binary\n",
	"src/deep/d_test.go": "needle (paren) [x]\n",
	"src/.gitignore":     "gen.go\n",
	"src/gen.go":         "needle generated\n",
	"empty/":             "",
}

func TestFind(t *testing.T) {
	env := testEnv(t)
	tree(t, env.Cwd, searchFiles)
	tests := []struct {
		name    string
		args    map[string]any
		wantErr bool
		exact   string
	}{
		{name: "by name", args: map[string]any{"pattern": "*.go"}, exact: "a.go\nsrc/c.go\nsrc/deep/d_test.go"},
		{name: "by path", args: map[string]any{"pattern": "src/**/*_test.go"}, exact: "src/deep/d_test.go"},
		{name: "double star", args: map[string]any{"pattern": "**/*.txt"}, exact: "B.txt\nsrc/rootonly.txt"},
		{name: "gitignore negation", args: map[string]any{"pattern": "*.log"}, exact: "keep.log"},
		{name: "hidden included", args: map[string]any{"pattern": ".hid*"}, exact: ".hidden"},
		{name: "folders", args: map[string]any{"pattern": "empty"}, exact: "empty/"},
		{name: "sub path", args: map[string]any{"pattern": "*.go", "path": "src"}, exact: "c.go\ndeep/d_test.go"},
		{name: "limit", args: map[string]any{"pattern": "*.go", "limit": 2}, exact: "a.go\nsrc/c.go\n\n[2 results limit reached (3 in all). Use limit=4 for more, or refine pattern]"},
		{name: "none", args: map[string]any{"pattern": "*.rs"}, exact: "No files found matching pattern"},
		{name: "bad glob", args: map[string]any{"pattern": "[a"}, wantErr: true, exact: "Invalid glob pattern \"[a\". Use globs like '*.go' or 'src/**/*_test.go'."},
		{name: "missing dir", args: map[string]any{"pattern": "*", "path": "nope"}, wantErr: true, exact: "Path not found: " + filepath.Join(env.Cwd, "nope")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := runTool(t, env, NewFind(), tc.args)
			if res.IsError != tc.wantErr || text(res) != tc.exact {
				t.Errorf("got %v %q\nwant %q", res.IsError, text(res), tc.exact)
			}
		})
	}
}

func TestGrep(t *testing.T) {
	env := testEnv(t)
	tree(t, env.Cwd, searchFiles)
	tree(t, env.Cwd, map[string]string{"long/l.txt": strings.Repeat("z", 600) + " needle\n"})
	tests := []struct {
		name    string
		args    map[string]any
		wantErr bool
		exact   string
		want    []string
	}{
		{name: "all files", args: map[string]any{"pattern": "needle"},
			exact: ".hidden:1: needle hidden\na.go:2: // needle one\nkeep.log:1: needle kept\nlong/l.txt:1: " + strings.Repeat("z", 500) +
				"... [truncated]\nsrc/c.go:3: needle three\nsrc/deep/d_test.go:1: needle (paren) [x]\nsrc/rootonly.txt:1: needle nested" +
				"\n\n[Some lines truncated to 500 chars. Use read tool to see full lines]"},
		{name: "ignore case", args: map[string]any{"pattern": "NEEDLE upper|needle kept", "ignoreCase": true, "glob": "*.{txt,log}"},
			exact: "B.txt:2: NEEDLE upper\nkeep.log:1: needle kept"},
		{name: "case sensitive", args: map[string]any{"pattern": "NEEDLE"}, exact: "B.txt:2: NEEDLE upper"},
		{name: "literal", args: map[string]any{"pattern": "(paren) [x]", "literal": true}, exact: "src/deep/d_test.go:1: needle (paren) [x]"},
		{name: "context", args: map[string]any{"pattern": "three", "context": 1},
			exact: "src/c.go-2- two\nsrc/c.go:3: needle three\nsrc/c.go-4- four"},
		{name: "single file", args: map[string]any{"pattern": "o", "path": "src/c.go"}, exact: "c.go:1: one\nc.go:2: two\nc.go:4: four"},
		{name: "glob path", args: map[string]any{"pattern": "needle", "glob": "src/**/*.go"}, exact: "src/c.go:3: needle three\nsrc/deep/d_test.go:1: needle (paren) [x]"},
		{name: "limit", args: map[string]any{"pattern": "o", "path": "src/c.go", "limit": 2},
			exact: "c.go:1: one\nc.go:2: two\n\n[2 matches limit reached (3 in all). Use limit=4 for more, or refine pattern]"},
		{name: "no match", args: map[string]any{"pattern": "zzzqqq"}, exact: "No matches found"},
		{name: "bad regex", args: map[string]any{"pattern": "(("}, wantErr: true, want: []string{"Invalid regex", "literal=true"}},
		{name: "missing path", args: map[string]any{"pattern": "x", "path": "nope"}, wantErr: true, want: []string{"Path not found"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := runTool(t, env, NewGrep(), tc.args)
			if res.IsError != tc.wantErr {
				t.Fatalf("IsError %v: %s", res.IsError, text(res))
			}
			if tc.exact != "" && text(res) != tc.exact {
				t.Errorf("got\n%s\nwant\n%s", text(res), tc.exact)
			}
			wantContains(t, text(res), tc.want...)
		})
	}
}

func TestGrepByteLimit(t *testing.T) {
	env := testEnv(t)
	var b strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&b, "match %s %d\n", strings.Repeat("m", 80), i)
	}
	tree(t, env.Cwd, map[string]string{"big.txt": b.String()})
	res := runTool(t, env, NewGrep(), map[string]any{"pattern": "match", "limit": 5000})
	wantContains(t, text(res), "\n\n[50.0KB limit reached]")
	if len(text(res)) > DefaultMaxBytes+200 {
		t.Errorf("%d bytes", len(text(res)))
	}
}

func TestLs(t *testing.T) {
	env := testEnv(t)
	tree(t, env.Cwd, map[string]string{"b.txt": "", "A.txt": "", ".dot": "", "sub/x": "", "empty/": ""})
	os.Symlink("missing-target", filepath.Join(env.Cwd, "broken"))
	os.WriteFile(filepath.Join(env.Cwd, "plain"), nil, 0o644)
	tests := []struct {
		name    string
		args    map[string]any
		wantErr bool
		exact   string
	}{
		{name: "cwd", args: map[string]any{}, exact: ".dot\nA.txt\nb.txt\nempty/\nplain\nsub/"},
		{name: "sub", args: map[string]any{"path": "sub"}, exact: "x"},
		{name: "empty", args: map[string]any{"path": "empty"}, exact: "(empty directory)"},
		{name: "limit", args: map[string]any{"limit": 2}, exact: ".dot\nA.txt\n\n[2 entries limit reached. Use limit=4 for more]"},
		{name: "missing", args: map[string]any{"path": "nope"}, wantErr: true, exact: "Path not found: " + filepath.Join(env.Cwd, "nope")},
		{name: "file", args: map[string]any{"path": "plain"}, wantErr: true, exact: "Not a directory: " + filepath.Join(env.Cwd, "plain") + ". Use read to see a file."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := runTool(t, env, NewLs(), tc.args)
			if res.IsError != tc.wantErr || text(res) != tc.exact {
				t.Errorf("got %v %q\nwant %q", res.IsError, text(res), tc.exact)
			}
		})
	}
}

func TestLsByteLimit(t *testing.T) {
	env := testEnv(t)
	for i := range 600 {
		os.WriteFile(filepath.Join(env.Cwd, fmt.Sprintf("%0120d", i)), nil, 0o644)
	}
	res := runTool(t, env, NewLs(), map[string]any{"limit": 1000})
	wantContains(t, text(res), "\n\n[50.0KB limit reached]")
	if d, ok := res.Details.(*LsDetails); !ok || d.Truncation == nil || !d.Truncation.Truncated {
		t.Errorf("details %#v", res.Details)
	}
}

func TestTruncate(t *testing.T) {
	tests := []struct {
		name       string
		head       bool
		in         string
		lines, max int
		want       string
		by         string
	}{
		{"head fits", true, "a\nb", 5, 10, "a\nb", ""},
		{"head lines", true, "a\nb\nc", 2, 100, "a\nb", "lines"},
		{"head bytes", true, "aaa\nbbb\nccc", 10, 7, "aaa\nbbb", "bytes"},
		{"head first too long", true, "aaaaaaaa\nb", 10, 5, "aaaaa", "bytes"},
		{"tail lines", false, "a\nb\nc", 2, 100, "b\nc", "lines"},
		{"tail bytes", false, "aaa\nbbb\nccc", 10, 7, "bbb\nccc", "bytes"},
		{"tail partial rune", false, "ééé", 10, 3, "é", "bytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := truncateTail
			if tc.head {
				f = truncateHead
			}
			got := f(tc.in, tc.lines, tc.max)
			if got.Content != tc.want || got.TruncatedBy != tc.by {
				t.Errorf("got %q by %q", got.Content, got.TruncatedBy)
			}
		})
	}
	for n, want := range map[int]string{0: "0B", 1023: "1023B", 1024: "1.0KB", 1536: "1.5KB", 1<<20 - 1: "1024.0KB", 1 << 20: "1.0MB", 3 << 20: "3.0MB"} {
		if got := formatSize(n); got != want {
			t.Errorf("formatSize(%d) = %s", n, got)
		}
	}
}
