package tools

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// patterned is n bytes in which every position shows: numbered lines of
// 8 bytes, cut at n.
func patterned(n int) string {
	b := make([]byte, 0, n+8)
	for i := 0; len(b) < n; i++ {
		b = append(b, strconv.Itoa(10_000_000 + i%10_000_000)[1:]...)
		b = append(b, '\n')
	}
	return string(b[:n])
}

// spilled is what a spill file bounded to limit holds of output: all of
// it when it fits; else its first head bytes, the cut's line and its last
// tail bytes (head = limit - tail - 256, tail = min(1 MiB, limit/4)).
func spilled(output string, limit int) string {
	tail := min(1<<20, limit/4)
	head := limit - tail - 256
	if len(output) <= head+tail {
		return output
	}
	return output[:head] + fmt.Sprintf("\n\n[Output truncated: %d bytes cut here. The command wrote %d bytes; this file keeps the first %d and the last %d.]\n\n",
		len(output)-head-tail, len(output), head, tail) + output[len(output)-tail:]
}

// TestBashSpillEdges pins the bounded spill file at its edges, through
// bash: a limit under 64 KiB counts as 64 KiB (a head of 48,896 bytes and
// a tail of 16,384); output of exactly head+tail bytes is kept whole, one
// byte more cuts exactly that byte, and the notice counts what was cut.
func TestBashSpillEdges(t *testing.T) {
	const limit = 64 << 10
	for _, tc := range []struct {
		n      int
		notice string // the result's line about the file, before its path
	}{
		{65280, "Full output: "},
		{65281, "Output truncated to its first 47.8KB and last 16.0KB: "},
		{65536, "Output truncated to its first 47.8KB and last 16.0KB: "},
		{300001, "Output truncated to its first 47.8KB and last 16.0KB: "},
	} {
		t.Run(fmt.Sprint(tc.n), func(t *testing.T) {
			env := testEnv(t)
			out := patterned(tc.n)
			if err := os.WriteFile(filepath.Join(env.Cwd, "out.txt"), []byte(out), 0o644); err != nil {
				t.Fatal(err)
			}
			res := runTool(t, env, NewBash(Options{MaxSpillBytes: 1}), map[string]any{"command": "cat out.txt"})
			if res.IsError {
				t.Fatal(clip(text(res)))
			}
			d := res.Details.(*BashDetails)
			want := spilled(out, limit)
			if d.FullOutputTruncated != (want != out) {
				t.Errorf("FullOutputTruncated %v for %d bytes", d.FullOutputTruncated, tc.n)
			}
			data, err := os.ReadFile(d.FullOutputPath)
			if err != nil || string(data) != want {
				t.Fatalf("spill file: %d bytes (%v), want %d:\n%s\nwant\n%s", len(data), err, len(want), clip(string(data)), clip(want))
			}
			if len(data) > limit {
				t.Errorf("spill file %d bytes over its limit %d", len(data), limit)
			}
			wantContains(t, text(res), tc.notice+d.FullOutputPath+"]")
		})
	}
}

// TestBashSpillDefaultBound pins the default bound of 50 MiB: output one
// byte over what the file can keep whole is cut by that byte, and the
// file keeps the first 51,379,968 bytes and the last MiB.
func TestBashSpillDefaultBound(t *testing.T) {
	const n = 50<<20 - 256 + 1
	env := testEnv(t)
	res := runTool(t, env, NewBash(Options{}), map[string]any{
		"command": fmt.Sprintf("yes 0123456789abcdef | head -c %d", n),
		"timeout": MaxBashTimeout.Seconds(), // 50 MiB through -race on a loaded machine may take minutes
	})
	if res.IsError {
		t.Fatal(clip(text(res)))
	}
	d := res.Details.(*BashDetails)
	if !d.FullOutputTruncated {
		t.Fatalf("details %+v", d)
	}
	wantContains(t, text(res), "Output truncated to its first 49.0MB and last 1.0MB: "+d.FullOutputPath+"]")
	f, err := os.Open(d.FullOutputPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	const mark = "\n\n[Output truncated: 1 bytes cut here. The command wrote 52428545 bytes; this file keeps the first 51379968 and the last 1048576.]\n\n"
	if err != nil || st.Size() != 51379968+int64(len(mark))+1048576 || st.Size() > 50<<20 {
		t.Fatalf("spill file: %v, %v", st, err)
	}
	got := make([]byte, 17+len(mark)+17)
	if _, err := f.ReadAt(got, 51379968-17); err != nil {
		t.Fatal(err)
	}
	// yes's line of 17 bytes repeats: the head ends at byte 51,379,968
	// and the tail starts one byte later, after the one byte cut.
	const line = "0123456789abcdef\n"
	at := func(i int) string { return string(line[i%17]) }
	want := ""
	for i := 51379968 - 17; i < 51379968; i++ {
		want += at(i)
	}
	want += mark
	for i := 51379968 + 1; i < 51379968+1+17; i++ {
		want += at(i)
	}
	if string(got) != want {
		t.Errorf("around the cut %q, want %q", got, want)
	}
}

// TestSpillFileChunkings writes the same output to a spill file in
// pieces of many sizes: the file is the same whatever the pieces, at and
// around the ring's edges (a piece filling the ring exactly, one byte
// more or less, pieces wrapping around its end).
func TestSpillFileChunkings(t *testing.T) {
	const limit = 64 << 10
	const head, tail = 48896, 16384
	chunkings := [][]int{
		{head + tail},
		{head + tail + 1},
		{head, tail},
		{head, tail, 1},
		{head, tail + 1},
		{head, tail - 1, 1},
		{head, tail - 1, 2},
		{head + 1, tail - 1, tail},
		{head + 5, tail - 3, tail - 1},
		{head - 1, 2, tail, tail},
		{head, 1, tail - 1, 1, tail - 1},
		{head, 10000, 10000, 10000, 10000},
		{head, 7, tail, 3 * tail, 5},
		{head + 2*tail + 3},
		{head + 3*tail, 1, 1},
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		c := []int{head}
		for range 1 + r.IntN(12) {
			c = append(c, 1+r.IntN(2*tail))
		}
		chunkings = append(chunkings, c)
	}
	for _, sizes := range chunkings {
		total := 0
		for _, s := range sizes {
			total += s
		}
		out := patterned(total)
		f, err := os.Create(filepath.Join(t.TempDir(), "spill"))
		if err != nil {
			t.Fatal(err)
		}
		s := newSpillFile(f, limit)
		rest := out
		for _, n := range sizes {
			s.write([]byte(rest[:n]))
			rest = rest[n:]
		}
		s.close()
		want := spilled(out, limit)
		if s.err != nil || s.truncated() != (want != out) {
			t.Errorf("pieces %v: err %v, truncated %v", sizes, s.err, s.truncated())
		}
		if got, err := os.ReadFile(f.Name()); err != nil || string(got) != want {
			t.Errorf("pieces %v: %d bytes (%v), want %d:\n%s\nwant\n%s", sizes, len(got), err, len(want), clip(string(got)), clip(want))
		}
	}
}

// TestBashSpillNotSaved: when the run's temp folder cannot be made, the
// output is still shown, cut as usual, and the notice says why no copy
// was saved.
func TestBashSpillNotSaved(t *testing.T) {
	env := testEnv(t)
	if err := os.WriteFile(filepath.Join(env.Cwd, "out.txt"), []byte(lines(2001)), 0o644); err != nil {
		t.Fatal(err)
	}
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	env.TempDir = filepath.Join(blocker, "run")
	res := runTool(t, env, NewBash(Options{}), map[string]any{"command": "cat out.txt"})
	got := text(res)
	want := strings.TrimPrefix(lines(2001), "line 1\n") + "\n\n[Showing lines 2-2001 of 2001. Full output: not saved (create temp folder " +
		env.TempDir + ": mkdir " + blocker + ": not a directory)]"
	if res.IsError || got != want {
		t.Errorf("got …%q, want …%q", got[max(len(got)-200, 0):], want[len(want)-200:])
	}
	if d := res.Details.(*BashDetails); d.FullOutputPath != "" || d.FullOutputTruncated {
		t.Errorf("details %+v", d)
	}
}

// TestSpillFileWriteError: a write the file refuses is reported, the
// first error kept, and the notice says the file is only partly saved.
func TestSpillFileWriteError(t *testing.T) {
	name := filepath.Join(t.TempDir(), "spill")
	if err := os.WriteFile(name, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(name) // read-only: every write fails
	if err != nil {
		t.Fatal(err)
	}
	s := newSpillFile(f, 1)
	s.write([]byte("abc"))
	s.write([]byte("def"))
	s.close()
	want := "Output only partly saved (write " + name + ": write " + name + ": bad file descriptor): " + name
	if got := s.notice(); got != want {
		t.Errorf("notice %q, want %q", got, want)
	}
}
