package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestEdit(t *testing.T) {
	tests := []struct {
		name     string
		file     string
		args     map[string]any
		wantErr  bool
		want     []string // in the result text
		wantFile string   // file after a successful edit
	}{
		{name: "exact", file: "a\nb\nc\n", args: map[string]any{"oldText": "b", "newText": "B"},
			want: []string{"Successfully replaced text in f.txt."}, wantFile: "a\nB\nc\n"},
		{name: "multi line", file: "one\ntwo\nthree\n", args: map[string]any{"oldText": "one\ntwo", "newText": "1\n2\n2.5"},
			wantFile: "1\n2\n2.5\nthree\n"},
		{name: "delete", file: "keep\ndrop\nkeep2", args: map[string]any{"oldText": "drop\n", "newText": ""}, wantFile: "keep\nkeep2"},
		{name: "not found", file: "abc", args: map[string]any{"oldText": "xyz", "newText": "q"}, wantErr: true,
			want: []string{"Could not find the exact text in f.txt", "0 occurrences"}},
		{name: "ambiguous", file: "x=1\nx=1\nx=1\n", args: map[string]any{"oldText": "x=1", "newText": "x=2"}, wantErr: true,
			want: []string{"Found 3 occurrences of the text in f.txt. The text must be unique."}},
		{name: "same text", file: "abc", args: map[string]any{"oldText": "b", "newText": "b"}, wantErr: true, want: []string{"identical"}},
		{name: "empty old", file: "abc", args: map[string]any{"oldText": "", "newText": "z"}, wantErr: true, want: []string{"oldText must not be empty"}},
		{name: "missing newText", file: "abc", args: map[string]any{"oldText": "a"}, wantErr: true, want: []string{"both oldText and newText"}},
		{name: "nothing asked", file: "abc", args: map[string]any{}, wantErr: true, want: []string{"Provide oldText and newText"}},
		{name: "crlf kept", file: "a\r\nb\r\nc\r\n", args: map[string]any{"oldText": "a\nb\n", "newText": "A\nB\nX\n"},
			wantFile: "A\r\nB\r\nX\r\nc\r\n"},
		{name: "mixed endings elsewhere untouched", file: "a\r\nb\nc\r\n", args: map[string]any{"oldText": "c", "newText": "C"},
			wantFile: "a\r\nb\nC\r\n"},
		{name: "bom kept", file: "\uFEFFhello world", args: map[string]any{"oldText": "hello", "newText": "bye"}, wantFile: "\uFEFFbye world"},
		{name: "fuzzy trailing space", file: "func a() {   \n\treturn\n}\nrest  \n", args: map[string]any{"oldText": "func a() {\n\treturn\n}", "newText": "func b() {}"},
			wantFile: "func b() {}\nrest  \n"},
		{name: "fuzzy smart quotes", file: "say(\u201chi\u201d) // it\u2019s\nother \u201cq\u201d\n", args: map[string]any{"oldText": "say(\"hi\") // it's", "newText": "say('yo')"},
			wantFile: "say('yo')\nother \u201cq\u201d\n"},
		{name: "fuzzy dashes and nbsp", file: "a \u2014 b\u00A0c\nz \u2013 y\n", args: map[string]any{"oldText": "a - b c", "newText": "ok"},
			wantFile: "ok\nz \u2013 y\n"},
		{name: "fuzzy nfkc", file: "\uFB01le name\nx\n", args: map[string]any{"oldText": "file name", "newText": "doc"}, wantFile: "doc\nx\n"},
		{name: "backtick is no quote", file: "it\u2019s\nit's  \nit\u2018s", args: map[string]any{"oldText": "it`s", "newText": "x"}, wantErr: true,
			want: []string{"0 occurrences"}},
		{name: "fuzzy counts", file: "\u201ca\u201d\n\u201ca\u201d\n", args: map[string]any{"oldText": "\"a\"", "newText": "b"}, wantErr: true,
			want: []string{"Found 2 occurrences"}},
		{name: "edits list", file: "alpha\nbeta\ngamma\n", args: map[string]any{"edits": []map[string]string{{"oldText": "gamma", "newText": "G"}, {"oldText": "alpha", "newText": "A"}}},
			want: []string{"Successfully applied 2 edits to f.txt."}, wantFile: "A\nbeta\nG\n"},
		{name: "edits all or nothing", file: "alpha\nbeta\n", args: map[string]any{"edits": []map[string]string{{"oldText": "alpha", "newText": "A"}, {"oldText": "zeta", "newText": "Z"}}},
			wantErr: true, want: []string{"edits[1]: Could not find", "No edits were applied"}},
		{name: "edits overlap", file: "alpha beta\n", args: map[string]any{"edits": []map[string]string{{"oldText": "alpha beta", "newText": "x"}, {"oldText": "beta", "newText": "y"}}},
			wantErr: true, want: []string{"overlap"}},
		{name: "edits item invalid", file: "a", args: map[string]any{"edits": []map[string]any{{"oldText": "a"}}}, wantErr: true,
			want: []string{"Invalid arguments for tool edit"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := testEnv(t)
			p := filepath.Join(env.Cwd, "f.txt")
			os.WriteFile(p, []byte(tc.file), 0o640)
			old := time.Now().Add(-time.Hour).Truncate(time.Second)
			os.Chtimes(p, old, old)
			args := map[string]any{"path": "f.txt"}
			for k, v := range tc.args {
				args[k] = v
			}
			res := runTool(t, env, NewEdit(), args)
			if res.IsError != tc.wantErr {
				t.Fatalf("IsError = %v: %s", res.IsError, text(res))
			}
			wantContains(t, text(res), tc.want...)
			got, _ := os.ReadFile(p)
			st, _ := os.Stat(p)
			if tc.wantErr {
				if string(got) != tc.file || !st.ModTime().Equal(old) {
					t.Errorf("file touched on error: %q mtime %v", got, st.ModTime())
				}
				return
			}
			if tc.wantFile != "" && string(got) != tc.wantFile {
				t.Errorf("file = %q, want %q", got, tc.wantFile)
			}
			if st.Mode().Perm() != 0o640 {
				t.Errorf("mode %v", st.Mode())
			}
			d, ok := res.Details.(EditDetails)
			if !ok || !strings.HasPrefix(d.Diff, "--- a/f.txt\n+++ b/f.txt\n@@ ") || d.FirstChangedLine < 1 {
				t.Errorf("details %#v", res.Details)
			}
		})
	}
}

func TestEditMissingFile(t *testing.T) {
	env := testEnv(t)
	res := runTool(t, env, NewEdit(), map[string]any{"path": "nope.go", "oldText": "a", "newText": "b"})
	if !res.IsError || !strings.Contains(text(res), "File not found: nope.go") {
		t.Fatalf("got %s", text(res))
	}
}

// TestEditRewritesOnlyTheSpan pins promise 8: a tolerant match changes the
// matched bytes only; quotes, dashes and spaces elsewhere stay.
func TestEditRewritesOnlyTheSpan(t *testing.T) {
	env := testEnv(t)
	before := strings.Repeat("keep \u201cthis\u201d \u2014 and\u00A0that   \r\n", 50)
	file := before + "target \u2018x\u2019   \r\n" + before
	p := filepath.Join(env.Cwd, "f.txt")
	os.WriteFile(p, []byte(file), 0o644)
	res := runTool(t, env, NewEdit(), map[string]any{"path": "f.txt", "oldText": "target 'x'\n", "newText": "done\n"})
	if res.IsError {
		t.Fatal(text(res))
	}
	got, _ := os.ReadFile(p)
	if want := before + "done\r\n" + before; string(got) != want {
		t.Errorf("rest of file changed")
	}
	d := res.Details.(EditDetails)
	if d.FirstChangedLine != 51 || !strings.Contains(d.Diff, "-target \u2018x\u2019   \n+done\n") || !strings.Contains(d.Diff, "@@ -47,9 +47,9 @@") {
		t.Errorf("diff line %d:\n%s", d.FirstChangedLine, d.Diff)
	}
}

func TestUnifiedDiff(t *testing.T) {
	tests := []struct {
		name, a, b, want string
		first            int
	}{
		{"equal", "x\ny", "x\ny", "", 0},
		{"insert at start", "b\nc", "a\nb\nc", "--- a/f\n+++ b/f\n@@ -1,2 +1,3 @@\n+a\n b\n c", 1},
		{"change middle", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11", "1\n2\n3\n4\n5\nsix\n7\n8\n9\n10\n11",
			"--- a/f\n+++ b/f\n@@ -2,9 +2,9 @@\n 2\n 3\n 4\n 5\n-6\n+six\n 7\n 8\n 9\n 10", 6},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, first := unifiedDiff("f", tc.a, tc.b)
			if d != tc.want || first != tc.first {
				t.Errorf("got (%d)\n%s\nwant (%d)\n%s", first, d, tc.first, tc.want)
			}
		})
	}
}
