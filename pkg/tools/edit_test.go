package tools

import (
	"context"
	"encoding/json"
	"fmt"
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
		{name: "lone cr read as a line end", file: "one\rtwo\rthree\r", args: map[string]any{"oldText": "two\nthree", "newText": "2"},
			wantFile: "one\r2\r"},
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
			if !ok || !strings.HasPrefix(d.Patch, "--- f.txt\n+++ f.txt\n@@ ") || d.Diff == "" || d.FirstChangedLine < 1 {
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
	if d.FirstChangedLine != 51 || !strings.Contains(d.Patch, "-target \u2018x\u2019   \n+done\n") || !strings.Contains(d.Patch, "@@ -47,9 +47,9 @@") ||
		!strings.Contains(d.Diff, "- 51 target \u2018x\u2019   \n+ 51 done\n") {
		t.Errorf("diff line %d:\n%s", d.FirstChangedLine, d.Diff)
	}
}

// pi16_editdiff.json holds what pi 1.6's edit-diff.js
// (generateDiffString, generateUnifiedPatch) makes of each pair of texts:
// the edit tool's details say the same.
func TestEditDiffAsPi(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "pi16_editdiff.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Name, Old, New, Diff, Patch string
		FirstChangedLine            int
	}
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			d := diffTexts("f.txt", tc.Old, tc.New)
			if d.diff != tc.Diff || d.patch != tc.Patch || d.first != tc.FirstChangedLine {
				t.Errorf("got (%d)\n%s\n%s\nwant (%d)\n%s\n%s", d.first, d.diff, d.patch, tc.FirstChangedLine, tc.Diff, tc.Patch)
			}
		})
	}
	if d := diffTexts("f.txt", "same\n", "same\n"); d != (editDiff{}) {
		t.Errorf("equal texts: %+v", d)
	}
}

// TestEditMessages pins edit's answers word for word where only the
// words tell the cases apart, and that a refused edit leaves the file.
func TestEditMessages(t *testing.T) {
	tests := []struct {
		name     string
		file     string
		args     map[string]any
		want     string
		wantFile string // "" for a refused edit: the file stays as it was
	}{
		{name: "missing oldText", file: "abc", args: map[string]any{"newText": "z"},
			want: "Provide both oldText and newText (or an edits list)."},
		{name: "one edit not found has no index", file: "abc", args: map[string]any{"oldText": "xyz", "newText": "q"},
			want: "Could not find the exact text in f.txt (0 occurrences, also none after normalising whitespace, quotes and dashes). " +
				"The old text must match exactly including all whitespace and newlines."},
		{name: "one edit in an edits list has no index", file: "abc", args: map[string]any{"edits": []map[string]string{{"oldText": "xyz", "newText": "q"}}},
			want: "Could not find the exact text in f.txt (0 occurrences, also none after normalising whitespace, quotes and dashes). " +
				"The old text must match exactly including all whitespace and newlines."},
		{name: "overlap names both edits in file order", file: "alpha beta\n",
			args: map[string]any{"edits": []map[string]string{{"oldText": "beta", "newText": "y"}, {"oldText": "alpha beta", "newText": "x"}}},
			want: "edits[1] and edits[0] overlap in f.txt. Merge them into one edit. No edits were applied."},
		{name: "overlap of the second and third", file: "a b c d\n",
			args: map[string]any{"edits": []map[string]string{{"oldText": "a", "newText": "A"}, {"oldText": "b c", "newText": "x"}, {"oldText": "c d", "newText": "y"}}},
			want: "edits[1] and edits[2] overlap in f.txt. Merge them into one edit. No edits were applied."},
		{name: "normalised to the same bytes", file: "it\u2019s\n", args: map[string]any{"oldText": "it's", "newText": "it\u2019s"},
			want: "No changes made to f.txt. The replacement produced identical content."},
		{name: "oldText and edits together", file: "one two three\n",
			args: map[string]any{"oldText": "one", "newText": "1", "edits": []map[string]string{{"oldText": "three", "newText": "3"}}},
			want: "Successfully applied 2 edits to f.txt.", wantFile: "1 two 3\n"},
		{name: "adjacent edits", file: "ab\n",
			args: map[string]any{"edits": []map[string]string{{"oldText": "b", "newText": "B"}, {"oldText": "a", "newText": "A"}}},
			want: "Successfully applied 2 edits to f.txt.", wantFile: "AB\n"},
		{name: "an empty first line ending in CRLF", file: "\r\nold\r\n", args: map[string]any{"oldText": "old", "newText": "new\nline"},
			want: "Successfully replaced text in f.txt.", wantFile: "\r\nnew\r\nline\r\n"},
		{name: "an empty first line ending in LF", file: "\nold\r\n", args: map[string]any{"oldText": "old", "newText": "new\nline"},
			want: "Successfully replaced text in f.txt.", wantFile: "\nnew\nline\r\n"},
		{name: "one line, no newline", file: "old", args: map[string]any{"oldText": "old", "newText": "new\nline"},
			want: "Successfully replaced text in f.txt.", wantFile: "new\nline"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := testEnv(t)
			p := filepath.Join(env.Cwd, "f.txt")
			if err := os.WriteFile(p, []byte(tc.file), 0o644); err != nil {
				t.Fatal(err)
			}
			args := map[string]any{"path": "f.txt"}
			for k, v := range tc.args {
				args[k] = v
			}
			res := runTool(t, env, NewEdit(), args)
			if text(res) != tc.want || res.IsError != (tc.wantFile == "") {
				t.Fatalf("got %v %q, want %q", res.IsError, text(res), tc.want)
			}
			want := tc.wantFile
			if want == "" {
				want = tc.file
			}
			wantFile(t, p, want)
			wantEntries(t, env.Cwd, "f.txt")
		})
	}
}

// TestEditRefusals pins the edits refused before anything is read or
// written: a cancelled call, a loop of symbolic links, a file over the
// size limit; and that a file exactly at the limit is loaded.
func TestEditRefusals(t *testing.T) {
	t.Run("cancelled", func(t *testing.T) {
		env := testEnv(t)
		p := filepath.Join(env.Cwd, "f.txt")
		os.WriteFile(p, []byte("old\n"), 0o644)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		res := runToolCtx(t, ctx, env, NewEdit(), map[string]any{"path": "f.txt", "oldText": "old", "newText": "new"}, nil)
		if !res.IsError || text(res) != errAborted {
			t.Fatalf("got %v %q", res.IsError, text(res))
		}
		wantFile(t, p, "old\n")
	})
	t.Run("link loop", func(t *testing.T) {
		env := testEnv(t)
		os.Symlink("b", filepath.Join(env.Cwd, "a"))
		os.Symlink("a", filepath.Join(env.Cwd, "b"))
		res := runTool(t, env, NewEdit(), map[string]any{"path": "a", "oldText": "old", "newText": "new"})
		if want := "Cannot edit a: more than 40 symbolic links lead on from it"; !res.IsError || text(res) != want {
			t.Fatalf("got %v %q, want %q", res.IsError, text(res), want)
		}
		wantLink(t, filepath.Join(env.Cwd, "a"), "b")
	})
	// sized makes a sparse file of size bytes ending in "old".
	sized := func(t *testing.T, p string, size int64) {
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteAt([]byte("old"), size-3); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("one byte over the limit", func(t *testing.T) {
		env := testEnv(t)
		p := filepath.Join(env.Cwd, "big.txt")
		sized(t, p, maxEditBytes+1)
		res := runTool(t, env, NewEdit(), map[string]any{"path": "big.txt", "oldText": "old", "newText": "new"})
		want := "Cannot edit big.txt: it is 32.0MB, over the 32.0MB edit limit. Use bash (e.g. sed) instead."
		if !res.IsError || text(res) != want {
			t.Fatalf("got %v %q, want %q", res.IsError, text(res), want)
		}
		wantEntries(t, env.Cwd, "big.txt")
	})
	t.Run("at the limit", func(t *testing.T) { // loaded whole; the edit itself is the other tests'
		p := filepath.Join(t.TempDir(), "big.txt")
		sized(t, p, maxEditBytes)
		raw, st, res, ok := loadForEdit(p, "big.txt")
		if !ok || len(raw) != maxEditBytes || st.Size() != maxEditBytes || !strings.HasSuffix(raw, "\x00old") {
			t.Fatalf("loaded %d bytes, ok %v: %q", len(raw), ok, text(res))
		}
	})
}

// TestEditRunBadArgs pins Run's answer to arguments it cannot decode,
// which the registry's schema check keeps from it: an error, not an empty
// success.
func TestEditRunBadArgs(t *testing.T) {
	env := testEnv(t)
	res, err := NewEdit().Run(context.Background(), Call{Name: "edit", Args: []byte(`{"path": 5}`), Env: env, Update: func(Result) {}})
	if err == nil {
		t.Fatalf("no error, result %+v", res)
	}
}

// A diff whose new text repeats the old one's lines (the common prefix and
// suffix overlap) shows the one line added.
func TestEditDiffOfRepeatedLines(t *testing.T) {
	env := testEnv(t)
	path := filepath.Join(env.Cwd, "x.txt")
	if err := os.WriteFile(path, []byte("x\nx\nx\nx\nx"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := runTool(t, env, NewEdit(), map[string]any{"path": "x.txt", "oldText": "x\nx\nx\nx\nx", "newText": "x\nx\nx\nx\nx\nx"})
	if res.IsError {
		t.Fatalf("edit failed: %s", text(res))
	}
	d, ok := res.Details.(EditDetails)
	added, removed := 0, 0
	for _, l := range strings.Split(d.Diff, "\n") {
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
		case strings.HasPrefix(l, "+"):
			added++
		case strings.HasPrefix(l, "-"):
			removed++
		}
	}
	if !ok || added != 1 || removed != 0 {
		t.Errorf("diff %q: want one added line and none removed", d.Diff)
	}
}

// TestEditFuzzyFoldEdges pins which characters a tolerant match takes as
// a quote, a dash or a space: each end of each range, and the character
// just outside it, which must still be matched exactly.
func TestEditFuzzyFoldEdges(t *testing.T) {
	for _, tc := range []struct {
		r    rune
		as   string // what oldText writes in its place; "" when nothing folds it
		note string
	}{
		{'\u2017', "", "below the single quotes"},
		{'\u2018', "'", ""}, {'\u201B', "'", ""},
		{'\u201C', `"`, ""}, {'\u201F', `"`, ""},
		{'\u2020', "", "above the double quotes"},
		{'\u200F', "", "below the dashes"},
		{'\u2010', "-", ""}, {'\u2015', "-", ""},
		{'\u2016', "", "above the dashes"},
		{'\u2211', "", "below the minus sign"}, {'\u2212', "-", ""}, {'\u2213', "", "above the minus sign"},
		{'\u00A0', " ", ""}, {'\u2002', " ", ""}, {'\u200A', " ", ""}, {'\u202F', " ", ""}, {'\u205F', " ", ""}, {'\u3000', " ", ""},
	} {
		t.Run(fmt.Sprintf("%U", tc.r), func(t *testing.T) {
			env := testEnv(t)
			p := filepath.Join(env.Cwd, "f.txt")
			file := "x" + string(tc.r) + "y\nrest\n"
			if err := os.WriteFile(p, []byte(file), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, plain := range []string{"'", `"`, "-", " "} {
				res := runTool(t, env, NewEdit(), map[string]any{"path": "f.txt", "oldText": "x" + plain + "y", "newText": "z"})
				got, _ := os.ReadFile(p)
				if plain == tc.as {
					if res.IsError || string(got) != "z\nrest\n" {
						t.Fatalf("%q not matched by %q: %s", tc.r, plain, text(res))
					}
					return
				}
				if !res.IsError || string(got) != file {
					t.Fatalf("%q (%s) matched by %q: %s", tc.r, tc.note, plain, text(res))
				}
			}
			if tc.as != "" {
				t.Fatal("no plain character matched")
			}
		})
	}
}
