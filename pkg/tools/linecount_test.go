package tools

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Lines are counted as pi 1.6 counts them: a final newline ends the last
// line rather than starting another, and empty output has no lines. The
// notices and truncation details below are pi 1.6's, from its bash and
// read tools run on the same output and files.

// seqOutput is what `seq from to` prints: one number a line, each line
// ended by a newline.
func seqOutput(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "%d\n", i)
	}
	return b.String()
}

// padded is n lines of 99 characters (the line's number, zero-padded),
// each ended by a newline: 100 bytes a line.
func padded(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%099d\n", i)
	}
	return b.String()
}

func TestBashCountsLinesAsPi(t *testing.T) {
	seq3000, wide := seqOutput(1, 3000), padded(1000)
	tests := []bashOutputCase{
		{name: "final newline", output: seq3000, shown: strings.TrimSuffix(seqOutput(1001, 3000), "\n"),
			notice: "[Showing lines 1001-3000 of 3000. Full output: ",
			tr:     Truncation{Truncated: true, TruncatedBy: "lines", TotalLines: 3000, TotalBytes: 13893, OutputLines: 2000, OutputBytes: 9999}},
		{name: "no final newline", output: strings.TrimSuffix(seq3000, "\n"), shown: strings.TrimSuffix(seqOutput(1001, 3000), "\n"),
			notice: "[Showing lines 1001-3000 of 3000. Full output: ",
			tr:     Truncation{Truncated: true, TruncatedBy: "lines", TotalLines: 3000, TotalBytes: 13892, OutputLines: 2000, OutputBytes: 9999}},
		{name: "2001 lines and a final newline", output: seqOutput(1, 2001), shown: strings.TrimSuffix(seqOutput(2, 2001), "\n"),
			notice: "[Showing lines 2-2001 of 2001. Full output: ",
			tr:     Truncation{Truncated: true, TruncatedBy: "lines", TotalLines: 2001, TotalBytes: 8898, OutputLines: 2000, OutputBytes: 8895}},
		{name: "byte limit, final newline", output: wide, shown: strings.TrimSuffix(wide[488*100:], "\n"),
			notice: "[Showing lines 489-1000 of 1000 (50.0KB limit). Full output: ",
			tr:     Truncation{Truncated: true, TruncatedBy: "bytes", TotalLines: 1000, TotalBytes: 100000, OutputLines: 512, OutputBytes: 51199}},
		{name: "byte limit, no final newline", output: strings.TrimSuffix(wide, "\n"), shown: strings.TrimSuffix(wide[488*100:], "\n"),
			notice: "[Showing lines 489-1000 of 1000 (50.0KB limit). Full output: ",
			tr:     Truncation{Truncated: true, TruncatedBy: "bytes", TotalLines: 1000, TotalBytes: 99999, OutputLines: 512, OutputBytes: 51199}},
		// under the limits the output is whole, its final newline kept,
		// and nothing is saved
		{name: "2000 lines and a final newline", output: seqOutput(1, 2000)},
		{name: "2000 lines", output: strings.TrimSuffix(seqOutput(1, 2000), "\n")},
		{name: "a newline alone", output: "\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { checkBashOutput(t, tc) })
	}
}

func TestBashNoOutputCountsNoLines(t *testing.T) {
	env := testEnv(t)
	res := runTool(t, env, NewBash(Options{}), map[string]any{"command": "true"})
	if text(res) != "(no output)" || res.Details != nil || res.IsError {
		t.Errorf("got %q, details %+v, error %v; want (no output) alone", text(res), res.Details, res.IsError)
	}
	s := newOutputSink(t.TempDir(), 0)
	defer s.close()
	if _, tr, _ := s.tail(); tr.TotalLines != 0 || tr.OutputLines != 0 || tr.Truncated {
		t.Errorf("no output: %+v, want 0 lines", tr)
	}
}

// TestBashLongLastLineSize pins the size a cut last line is said to have
// when a newline ends it: the line's, not the 0 bytes after the newline.
func TestBashLongLastLineSize(t *testing.T) {
	env := testEnv(t)
	out := "w\n" + strings.Repeat("z", 60000) + "\n"
	if err := os.WriteFile(filepath.Join(env.Cwd, "out.txt"), []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	res := runTool(t, env, NewBash(Options{}), map[string]any{"command": "cat out.txt"})
	d, ok := res.Details.(*BashDetails)
	if !ok || d.Truncation == nil {
		t.Fatalf("details %+v", res.Details)
	}
	want := strings.Repeat("z", DefaultMaxBytes) + "\n\n[Showing last 50.0KB of line 2 (line is 58.6KB). Full output: " + d.FullOutputPath + "]"
	if got := text(res); got != want {
		t.Errorf("got …%q, want …%q", got[max(len(got)-120, 0):], want[max(len(want)-120, 0):])
	}
	if tr := *d.Truncation; tr.TotalLines != 2 || tr.OutputLines != 1 || !tr.LastLinePartial {
		t.Errorf("truncation %+v, want line 2 of 2, partial", clipTruncation(tr))
	}
}

func TestReadCountsLinesAsPi(t *testing.T) {
	seq3000, wide := seqOutput(1, 3000), padded(1000)
	head2000 := strings.TrimSuffix(seqOutput(1, 2000), "\n")
	tests := []readCase{
		// the notice counts the file's lines as split at each newline,
		// the details the selection's lines as pi 1.6 counts them
		{name: "final newline", file: seq3000, want: head2000 + "\n\n[Showing lines 1-2000 of 3001. Use offset=2001 to continue.]",
			tr: &Truncation{Truncated: true, TruncatedBy: "lines", TotalLines: 3000, TotalBytes: 13893, OutputLines: 2000, OutputBytes: 8892}},
		{name: "no final newline", file: strings.TrimSuffix(seq3000, "\n"), want: head2000 + "\n\n[Showing lines 1-2000 of 3000. Use offset=2001 to continue.]",
			tr: &Truncation{Truncated: true, TruncatedBy: "lines", TotalLines: 3000, TotalBytes: 13892, OutputLines: 2000, OutputBytes: 8892}},
		{name: "byte limit, final newline", file: wide,
			want: wide[:512*100-1] + "\n\n[Showing lines 1-512 of 1001 (50.0KB limit). Use offset=513 to continue.]",
			tr:   &Truncation{Truncated: true, TruncatedBy: "bytes", TotalLines: 1000, TotalBytes: 100000, OutputLines: 512, OutputBytes: 51199}},
		{name: "byte limit, no final newline", file: strings.TrimSuffix(wide, "\n"),
			want: wide[:512*100-1] + "\n\n[Showing lines 1-512 of 1000 (50.0KB limit). Use offset=513 to continue.]",
			tr:   &Truncation{Truncated: true, TruncatedBy: "bytes", TotalLines: 1000, TotalBytes: 99999, OutputLines: 512, OutputBytes: 51199}},
		{name: "2000 lines and a final newline", file: head2000 + "\n", want: head2000 + "\n"},
		{name: "2000 lines", file: head2000, want: head2000},
		{name: "2000 lines after an offset, final newline", file: seq3000, args: map[string]any{"offset": 1001},
			want: seqOutput(1001, 3000)},
		{name: "a limit of 2000 before a final newline", file: head2000 + "\n", args: map[string]any{"limit": 2000},
			want: head2000 + "\n\n[1 more lines in file. Use offset=2001 to continue.]"},
		{name: "an empty line within the file after 2000", file: head2000 + "\n\nlast", want: head2000 + "\n\n[Showing lines 1-2000 of 2002. Use offset=2001 to continue.]",
			tr: &Truncation{Truncated: true, TruncatedBy: "lines", TotalLines: 2002, TotalBytes: len(head2000) + 6, OutputLines: 2000, OutputBytes: len(head2000)}},
		{name: "a limit ending on an empty line after 2000", file: head2000 + "\n\nlast\n", args: map[string]any{"limit": 2001},
			want: head2000 + "\n\n\n[2 more lines in file. Use offset=2002 to continue.]"},
		{name: "two empty lines after 2000", file: head2000 + "\n\n\n", want: head2000 + "\n\n[Showing lines 1-2000 of 2003. Use offset=2001 to continue.]",
			tr: &Truncation{Truncated: true, TruncatedBy: "lines", TotalLines: 2002, TotalBytes: len(head2000) + 3, OutputLines: 2000, OutputBytes: len(head2000)}},
		{name: "empty file", file: "", want: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { checkRead(t, tc) })
	}
}

// TestOutputSinkCountsLines pins the sink's count of lines and the size
// of the last one against countLines, whatever pieces the output comes
// in: a final newline ends the last line, whose size is then the line's.
func TestOutputSinkCountsLines(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	alphabet := []string{"\n", "\n", "a", "bc", "defgh"}
	for i := range 500 {
		var b strings.Builder
		for range r.IntN(12) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		out := b.String()
		s := newOutputSink(t.TempDir(), 0)
		for rest := out; rest != ""; {
			n := 1 + r.IntN(len(rest))
			s.write([]byte(rest[:n]))
			rest = rest[n:]
		}
		lines := countLines(out)
		last := 0
		if len(lines) > 0 {
			last = len(lines[len(lines)-1])
		}
		if s.lines() != len(lines) || s.lastLineSize() != last {
			t.Fatalf("case %d %q: %d lines, the last of %d bytes; want %d, %d", i, out, s.lines(), s.lastLineSize(), len(lines), last)
		}
		s.close()
	}
}

// clipTruncation shortens a truncation's content for a failure message.
func clipTruncation(tr Truncation) Truncation {
	tr.Content = clip(tr.Content)
	return tr
}
