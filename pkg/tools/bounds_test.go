package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The output limits are pinned at each edge: one under, at, and one over.

// lines joins n lines "line 1" … "line n" with no final newline, so the
// text has exactly n lines as pi counts them.
func lines(n int) string {
	ls := make([]string, n)
	for i := range ls {
		ls[i] = fmt.Sprintf("line %d", i+1)
	}
	return strings.Join(ls, "\n")
}

// wideText is n bytes (n ≥ 200): lines of 99 'x' and a newline, then a
// last line of 100 to 199 'y'.
func wideText(n int) string {
	full := n/100 - 1
	return strings.Repeat(strings.Repeat("x", 99)+"\n", full) + strings.Repeat("y", n-100*full)
}

func TestTruncateHeadEdges(t *testing.T) {
	tests := []struct {
		name           string
		in             string
		maxLines, maxB int
		want           Truncation
	}{
		{"lines under", "a\nb", 3, 100, Truncation{Content: "a\nb", TotalLines: 2, TotalBytes: 3, OutputLines: 2, OutputBytes: 3}},
		{"lines at", "a\nb\nc", 3, 100, Truncation{Content: "a\nb\nc", TotalLines: 3, TotalBytes: 5, OutputLines: 3, OutputBytes: 5}},
		{"lines over", "a\nb\nc\nd", 3, 100, Truncation{Content: "a\nb\nc", Truncated: true, TruncatedBy: "lines", TotalLines: 4, TotalBytes: 7, OutputLines: 3, OutputBytes: 5}},
		{"bytes under", "ab\ncd", 10, 6, Truncation{Content: "ab\ncd", TotalLines: 2, TotalBytes: 5, OutputLines: 2, OutputBytes: 5}},
		{"bytes at", "ab\ncd", 10, 5, Truncation{Content: "ab\ncd", TotalLines: 2, TotalBytes: 5, OutputLines: 2, OutputBytes: 5}},
		{"bytes over", "ab\ncd", 10, 4, Truncation{Content: "ab", Truncated: true, TruncatedBy: "bytes", TotalLines: 2, TotalBytes: 5, OutputLines: 1, OutputBytes: 2}},
		{"next line fits exactly", "ab\ncd\ne", 10, 5, Truncation{Content: "ab\ncd", Truncated: true, TruncatedBy: "bytes", TotalLines: 3, TotalBytes: 7, OutputLines: 2, OutputBytes: 5}},
		{"first line at the byte limit", "abcd\ne", 10, 4, Truncation{Content: "abcd", Truncated: true, TruncatedBy: "bytes", TotalLines: 2, TotalBytes: 6, OutputLines: 1, OutputBytes: 4}},
		// a first line over the limit keeps its head (it was cut to nothing)
		{"first line over the byte limit", "abcde\ne", 10, 4, Truncation{Content: "abcd", Truncated: true, TruncatedBy: "bytes", TotalLines: 2, TotalBytes: 7, OutputLines: 1, OutputBytes: 4, FirstLineExceedsLimit: true}},
		{"first line over the limit, cut on a rune", "aé\ne", 10, 2, Truncation{Content: "a", Truncated: true, TruncatedBy: "bytes", TotalLines: 2, TotalBytes: 5, OutputLines: 1, OutputBytes: 1, FirstLineExceedsLimit: true}},
		{"both limits at once", "a\nb\nc", 2, 3, Truncation{Content: "a\nb", Truncated: true, TruncatedBy: "lines", TotalLines: 3, TotalBytes: 5, OutputLines: 2, OutputBytes: 3}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.want.MaxLines, tc.want.MaxBytes = tc.maxLines, tc.maxB
			if got := truncateHead(tc.in, tc.maxLines, tc.maxB); got != tc.want {
				t.Errorf("got\n%+v\nwant\n%+v", got, tc.want)
			}
		})
	}
}

func TestTruncateTailEdges(t *testing.T) {
	tests := []struct {
		name           string
		in             string
		maxLines, maxB int
		want           Truncation
	}{
		{"lines under", "a\nb", 3, 100, Truncation{Content: "a\nb", TotalLines: 2, TotalBytes: 3, OutputLines: 2, OutputBytes: 3}},
		{"lines at", "a\nb\nc", 3, 100, Truncation{Content: "a\nb\nc", TotalLines: 3, TotalBytes: 5, OutputLines: 3, OutputBytes: 5}},
		{"lines over", "a\nb\nc\nd", 3, 100, Truncation{Content: "b\nc\nd", Truncated: true, TruncatedBy: "lines", TotalLines: 4, TotalBytes: 7, OutputLines: 3, OutputBytes: 5}},
		{"bytes at", "ab\ncd", 10, 5, Truncation{Content: "ab\ncd", TotalLines: 2, TotalBytes: 5, OutputLines: 2, OutputBytes: 5}},
		{"bytes over", "ab\ncd", 10, 4, Truncation{Content: "cd", Truncated: true, TruncatedBy: "bytes", TotalLines: 2, TotalBytes: 5, OutputLines: 1, OutputBytes: 2}},
		{"earlier line fits exactly", "e\nab\ncd", 10, 5, Truncation{Content: "ab\ncd", Truncated: true, TruncatedBy: "bytes", TotalLines: 3, TotalBytes: 7, OutputLines: 2, OutputBytes: 5}},
		{"last line at the byte limit", "e\nabcd", 10, 4, Truncation{Content: "abcd", Truncated: true, TruncatedBy: "bytes", TotalLines: 2, TotalBytes: 6, OutputLines: 1, OutputBytes: 4}},
		{"last line over the byte limit", "e\nabcde", 10, 4, Truncation{Content: "bcde", Truncated: true, TruncatedBy: "bytes", TotalLines: 2, TotalBytes: 7, OutputLines: 1, OutputBytes: 4, LastLinePartial: true}},
		{"both limits at once", "a\nb\nc", 2, 3, Truncation{Content: "b\nc", Truncated: true, TruncatedBy: "lines", TotalLines: 3, TotalBytes: 5, OutputLines: 2, OutputBytes: 3}},
		// a long line ending in a newline reached the model as "(no
		// output)": the kept lines were only the empty one after it
		{"long line then a newline", "e\nabcdef\n", 10, 4, Truncation{Content: "cdef", Truncated: true, TruncatedBy: "bytes", TotalLines: 2, TotalBytes: 9, OutputLines: 1, OutputBytes: 4, LastLinePartial: true}},
		{"long line then blank lines", "abcdef\n\n", 10, 4, Truncation{Content: "def\n", Truncated: true, TruncatedBy: "bytes", TotalLines: 2, TotalBytes: 8, OutputLines: 2, OutputBytes: 4, LastLinePartial: true}},
		{"blank lines alone fill the limit", "abcdef\n\n\n\n\n", 10, 4, Truncation{Content: "\n\n\n\n", Truncated: true, TruncatedBy: "bytes", TotalLines: 5, TotalBytes: 11, OutputLines: 5, OutputBytes: 4}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.want.MaxLines, tc.want.MaxBytes = tc.maxLines, tc.maxB
			if got := truncateTail(tc.in, tc.maxLines, tc.maxB); got != tc.want {
				t.Errorf("got\n%+v\nwant\n%+v", got, tc.want)
			}
		})
	}
	for _, tc := range []struct {
		in   string
		max  int
		want string
	}{{"abc", 2, "bc"}, {"abc", 3, "abc"}, {"abc", 4, "abc"}, {"aé", 2, "é"}, {"aé", 1, ""}, {"a\x80\x80", 2, ""}} {
		if got := tailBytes(tc.in, tc.max); got != tc.want {
			t.Errorf("tailBytes(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
	}
}

func TestTruncateLineEdges(t *testing.T) {
	for _, tc := range []struct {
		in   string
		max  int
		want string
		cut  bool
	}{
		{"abcd", 5, "abcd", false},
		{"abcde", 5, "abcde", false},
		{"abcdef", 5, "abcde... [truncated]", true},
		{"ééééé", 5, "ééééé", false},
		{"éééééé", 5, "ééééé... [truncated]", true},
	} {
		got, cut := truncateLine(tc.in, tc.max)
		if got != tc.want || cut != tc.cut {
			t.Errorf("truncateLine(%q, %d) = %q %v, want %q %v", tc.in, tc.max, got, cut, tc.want, tc.cut)
		}
	}
}

// TestReadLimitEdges pins read's line and byte limits and the limit
// argument at each edge.
func TestReadLimitEdges(t *testing.T) {
	notice := func(last, total int, bytes bool) string {
		s := fmt.Sprintf("\n\n[Showing lines 1-%d of %d", last, total)
		if bytes {
			s += " (50.0KB limit)"
		}
		return s + fmt.Sprintf(". Use offset=%d to continue.]", last+1)
	}
	long := func(n int) string { return strings.Repeat("z", n) }
	tests := []readCase{
		{name: "1999 lines", file: lines(1999), want: lines(1999)},
		{name: "2000 lines", file: lines(2000), want: lines(2000)},
		{name: "2001 lines", file: lines(2001), want: lines(2000) + notice(2000, 2001, false),
			tr: &Truncation{Truncated: true, TruncatedBy: "lines", TotalLines: 2001, TotalBytes: len(lines(2001)), OutputLines: 2000, OutputBytes: len(lines(2000))}},
		{name: "51199 bytes", file: wideText(51199), want: wideText(51199)},
		{name: "51200 bytes", file: wideText(51200), want: wideText(51200)},
		{name: "51201 bytes", file: wideText(51201), want: wideText(51201)[:511*100-1] + notice(511, 512, true),
			tr: &Truncation{Truncated: true, TruncatedBy: "bytes", TotalLines: 512, TotalBytes: 51201, OutputLines: 511, OutputBytes: 511*100 - 1}},
		{name: "one line of 51200 bytes", file: long(51200), want: long(51200)},
		{name: "one line of 51201 bytes", file: long(51201),
			want: "[Line 1 is 50.0KB, exceeds 50.0KB limit. Use bash: sed -n '1p' f.txt | head -c 51200]",
			tr:   &Truncation{Truncated: true, TruncatedBy: "bytes", TotalLines: 1, TotalBytes: 51201, FirstLineExceedsLimit: true}},
		{name: "limit under", file: lines(5), args: map[string]any{"limit": 4}, want: lines(4) + "\n\n[1 more lines in file. Use offset=5 to continue.]"},
		{name: "limit at", file: lines(5), args: map[string]any{"limit": 5}, want: lines(5)},
		{name: "limit over", file: lines(5), args: map[string]any{"limit": 6}, want: lines(5)},
		{name: "offset at the last line", file: lines(5), args: map[string]any{"offset": 5}, want: "line 5"},
		{name: "offset limit at the end", file: lines(5), args: map[string]any{"offset": 4, "limit": 2}, want: "line 4\nline 5"},
		{name: "offset limit one short", file: lines(5), args: map[string]any{"offset": 3, "limit": 2},
			want: "line 3\nline 4\n\n[1 more lines in file. Use offset=5 to continue.]"},
		{name: "2000 lines after an offset", file: lines(2100), args: map[string]any{"offset": 101}, want: strings.TrimPrefix(lines(2100), lines(100)+"\n")},
		{name: "2001 lines after an offset", file: lines(2101), args: map[string]any{"offset": 101},
			want: strings.TrimPrefix(lines(2100), lines(100)+"\n") + "\n\n[Showing lines 101-2100 of 2101. Use offset=2101 to continue.]",
			tr: &Truncation{Truncated: true, TruncatedBy: "lines", TotalLines: 2001, TotalBytes: len(lines(2101)) - len(lines(100)) - 1,
				OutputLines: 2000, OutputBytes: len(lines(2100)) - len(lines(100)) - 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { checkRead(t, tc) })
	}
}

// readCase is a file read whole or with args (offset, limit): the text
// the model is shown, and the details' truncation (nil: no details).
type readCase struct {
	name string
	file string
	args map[string]any
	want string
	tr   *Truncation
}

// checkRead reads tc's file as f.txt and checks the text shown and the
// details, which carry the lines shown as pi's do.
func checkRead(t *testing.T, tc readCase) {
	t.Helper()
	env := testEnv(t)
	if err := os.WriteFile(filepath.Join(env.Cwd, "f.txt"), []byte(tc.file), 0o644); err != nil {
		t.Fatal(err)
	}
	args := map[string]any{"path": "f.txt"}
	for k, v := range tc.args {
		args[k] = v
	}
	res := runTool(t, env, NewRead(), args)
	if res.IsError || text(res) != tc.want {
		t.Fatalf("error %v, got %d bytes %q, want %d bytes %q", res.IsError, len(text(res)), clip(text(res)), len(tc.want), clip(tc.want))
	}
	if tc.tr == nil {
		if res.Details != nil {
			t.Errorf("details %+v on a whole read", res.Details)
		}
		return
	}
	d, ok := res.Details.(ReadDetails)
	want := *tc.tr
	want.MaxLines, want.MaxBytes = DefaultMaxLines, DefaultMaxBytes
	if !want.FirstLineExceedsLimit { // the lines shown, as pi's details carry them
		want.Content, _, _ = strings.Cut(tc.want, "\n\n[Showing lines ")
	}
	if !ok || d.Truncation == nil || *d.Truncation != want {
		t.Errorf("details %+v, want truncation %+v", res.Details, clipTruncation(want))
	}
}

// TestBashOutputEdges pins bash's shown tail and its spill file at the
// line and byte limits: under and at a limit the output is whole and
// nothing is saved; one over, the tail is shown and the whole output is
// in the spill file.
func TestBashOutputEdges(t *testing.T) {
	tests := []bashOutputCase{
		{name: "1999 lines", output: lines(1999)},
		{name: "2000 lines", output: lines(2000)},
		{name: "2001 lines", output: lines(2001), shown: strings.TrimPrefix(lines(2001), "line 1\n"), notice: "[Showing lines 2-2001 of 2001. Full output: ",
			tr: Truncation{Truncated: true, TruncatedBy: "lines", TotalLines: 2001, TotalBytes: len(lines(2001)), OutputLines: 2000, OutputBytes: len(lines(2001)) - 7}},
		{name: "2000 lines and a newline", output: lines(2000) + "\n"},
		{name: "51199 bytes", output: wideText(51199)},
		{name: "51200 bytes", output: wideText(51200)},
		{name: "51201 bytes", output: wideText(51201), shown: wideText(51201)[100:], notice: "[Showing lines 2-512 of 512 (50.0KB limit). Full output: ",
			tr: Truncation{Truncated: true, TruncatedBy: "bytes", TotalLines: 512, TotalBytes: 51201, OutputLines: 511, OutputBytes: 51101}},
		// The size of a cut last line counts from the last newline; a byte
		// less or two more would show: 51251 bytes are 50.0KB, 51252 and
		// 51353 are 50.1KB, 51355 is 50.2KB.
		{name: "a short line, then one of 51252 bytes", output: strings.Repeat("w", 1000) + "\n" + strings.Repeat("z", 51252), shown: strings.Repeat("z", 51200),
			notice: "[Showing last 50.0KB of line 2 (line is 50.1KB). Full output: ",
			tr:     Truncation{Truncated: true, TruncatedBy: "bytes", TotalLines: 2, TotalBytes: 52253, OutputLines: 1, OutputBytes: 51200, LastLinePartial: true}},
		{name: "a short line, then one of 51353 bytes", output: strings.Repeat("w", 1000) + "\n" + strings.Repeat("z", 51353), shown: strings.Repeat("z", 51200),
			notice: "[Showing last 50.0KB of line 2 (line is 50.1KB). Full output: ",
			tr:     Truncation{Truncated: true, TruncatedBy: "bytes", TotalLines: 2, TotalBytes: 52354, OutputLines: 1, OutputBytes: 51200, LastLinePartial: true}},
		{name: "one line of 51201 bytes", output: strings.Repeat("z", 51201), shown: strings.Repeat("z", 51200),
			notice: "[Showing last 50.0KB of line 1 (line is 50.0KB). Full output: ",
			tr:     Truncation{Truncated: true, TruncatedBy: "bytes", TotalLines: 1, TotalBytes: 51201, OutputLines: 1, OutputBytes: 51200, LastLinePartial: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { checkBashOutput(t, tc) })
	}
}

// bashOutputCase is an output bash shows: whole (shown empty), or cut
// to shown with notice and the truncation details tr.
type bashOutputCase struct {
	name   string
	output string
	shown  string // the tail shown, when cut
	notice string // its notice, before the spill path
	tr     Truncation
}

// checkBashOutput runs bash on tc.output and checks what it shows, its
// details and the spill file.
func checkBashOutput(t *testing.T, tc bashOutputCase) {
	t.Helper()
	env := testEnv(t)
	if err := os.WriteFile(filepath.Join(env.Cwd, "out.txt"), []byte(tc.output), 0o644); err != nil {
		t.Fatal(err)
	}
	res := runTool(t, env, NewBash(Options{}), map[string]any{"command": "cat out.txt"})
	got := text(res)
	if res.IsError {
		t.Fatal(clip(got))
	}
	if tc.shown == "" {
		if got != tc.output || res.Details != nil {
			t.Errorf("got %d bytes %q, details %+v; want the whole %d bytes, no details", len(got), clip(got), res.Details, len(tc.output))
		}
		if ents, _ := os.ReadDir(env.TempDir); len(ents) != 0 {
			t.Errorf("output saved under the limits: %v", ents)
		}
		return
	}
	d, ok := res.Details.(*BashDetails)
	if !ok || d.FullOutputPath == "" || d.FullOutputTruncated || d.Truncation == nil {
		t.Fatalf("details %+v", res.Details)
	}
	tc.tr.MaxLines, tc.tr.MaxBytes = DefaultMaxLines, DefaultMaxBytes
	tc.tr.Content = tc.shown // as pi's details carry it
	if *d.Truncation != tc.tr {
		t.Errorf("truncation\n%+v\nwant\n%+v", clipTruncation(*d.Truncation), clipTruncation(tc.tr))
	}
	if want := tc.shown + "\n\n" + tc.notice + d.FullOutputPath + "]"; got != want {
		t.Errorf("got %d bytes …%q, want %d bytes …%q", len(got), got[max(len(got)-200, 0):], len(want), want[max(len(want)-200, 0):])
	}
	if full, err := os.ReadFile(d.FullOutputPath); err != nil || string(full) != tc.output {
		t.Errorf("spill file: %d bytes (%v), want the whole %d", len(full), err, len(tc.output))
	}
}

// TestSearchLimitEdges pins the result bounds of grep, find and ls: at
// one under and at the limit every result is shown without a notice… or,
// at the limit, with the notice that says it was reached; one over, the
// last result is left out.
func TestSearchLimitEdges(t *testing.T) {
	for _, n := range []int{2, 3, 4} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			const limit = 3
			env := testEnv(t)
			var grepLines, findLines, lsLines []string
			var file strings.Builder
			for i := 1; i <= n; i++ {
				name := fmt.Sprintf("f%d.txt", i)
				if err := os.WriteFile(filepath.Join(env.Cwd, name), []byte("hit\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				fmt.Fprintf(&file, "hit %d\n", i)
				if i <= limit {
					grepLines = append(grepLines, fmt.Sprintf("all.log:%d: hit %d", i, i))
					findLines = append(findLines, name)
					lsLines = append(lsLines, name)
				}
			}
			if err := os.WriteFile(filepath.Join(env.Cwd, "all.log"), []byte(file.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			lsLines = append([]string{"all.log"}, lsLines...)[:min(n+1, limit)]
			reached := func(s string) string {
				if n < limit {
					return ""
				}
				return "\n\n[" + s + "]"
			}
			grepWant := strings.Join(grepLines, "\n") + reached(fmt.Sprintf("3 matches limit reached (%d in all). Use limit=6 for more, or refine pattern", n))
			if res := runTool(t, env, NewGrep(), map[string]any{"pattern": "hit", "path": "all.log", "limit": limit}); text(res) != grepWant {
				t.Errorf("grep: got %q, want %q", text(res), grepWant)
			} else if d, _ := res.Details.(*GrepDetails); (n >= limit) != (d != nil && d.MatchLimitReached == limit) {
				t.Errorf("grep details %+v", res.Details)
			}
			findWant := strings.Join(findLines, "\n") + reached(fmt.Sprintf("3 results limit reached (%d in all). Use limit=6 for more, or refine pattern", n))
			if res := runTool(t, env, NewFind(), map[string]any{"pattern": "f*.txt", "limit": limit}); text(res) != findWant {
				t.Errorf("find: got %q, want %q", text(res), findWant)
			} else if d, _ := res.Details.(*FindDetails); (n >= limit) != (d != nil && d.ResultLimitReached == limit) {
				t.Errorf("find details %+v", res.Details)
			}
			lsReached := ""
			if n+1 > limit {
				lsReached = "\n\n[3 entries limit reached. Use limit=6 for more]"
			}
			if res := runTool(t, env, NewLs(), map[string]any{"limit": limit}); text(res) != strings.Join(lsLines, "\n")+lsReached {
				t.Errorf("ls: got %q, want %q", text(res), strings.Join(lsLines, "\n")+lsReached)
			}
		})
	}
}

// TestListByteEdges pins the byte bound grep, find and ls share: a list
// of exactly DefaultMaxBytes is whole; one byte more loses its last line
// and says the limit was reached.
func TestListByteEdges(t *testing.T) {
	for _, size := range []int{DefaultMaxBytes - 1, DefaultMaxBytes, DefaultMaxBytes + 1} {
		list := strings.Split(wideText(size), "\n")
		var d LsDetails
		res := listResult(list, nil, nil, &d.Truncation, &d)
		whole := strings.Join(list, "\n")
		if size <= DefaultMaxBytes {
			if text(res) != whole || res.Details != nil {
				t.Errorf("%d bytes: got %d bytes, details %+v", size, len(text(res)), res.Details)
			}
			continue
		}
		want := strings.Join(list[:len(list)-1], "\n") + "\n\n[50.0KB limit reached]"
		if text(res) != want || d.Truncation == nil || d.Truncation.OutputLines != len(list)-1 || d.Truncation.TruncatedBy != "bytes" {
			t.Errorf("%d bytes: got %d bytes …%q, truncation %+v", size, len(text(res)), text(res)[max(len(text(res))-60, 0):], d.Truncation)
		}
	}
}

// TestGrepLineLengthEdges pins the cut of a long matching line through
// the tool: 500 characters are shown whole, 501 are cut with a notice.
func TestGrepLineLengthEdges(t *testing.T) {
	for _, n := range []int{GrepMaxLineLength - 1, GrepMaxLineLength, GrepMaxLineLength + 1} {
		env := testEnv(t)
		line := "é" + strings.Repeat("a", n-1)
		if err := os.WriteFile(filepath.Join(env.Cwd, "f.txt"), []byte(line+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		res := runTool(t, env, NewGrep(), map[string]any{"pattern": "é", "path": "f.txt"})
		want := "f.txt:1: " + line
		if n > GrepMaxLineLength {
			want = "f.txt:1: " + line[:len(line)-1] + "... [truncated]\n\n[Some lines truncated to 500 chars. Use read tool to see full lines]"
		}
		if text(res) != want {
			t.Errorf("%d characters: got …%q, want …%q", n, text(res)[max(len(text(res))-80, 0):], want[max(len(want)-80, 0):])
		}
	}
}
