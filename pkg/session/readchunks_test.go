package session

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	"gopi/internal/fdcheck"
)

// readLineByLine is the reader as it was before chunks: one line at a time,
// the rules applied as each line is decoded. The chunked reader must give
// exactly its result.
func readLineByLine(r io.Reader, name string) (*File, error) {
	rd := lineReader{br: bufio.NewReaderSize(r, 64<<10)}
	out := &File{Path: name}
	if err := out.readHeader(&rd); err != nil {
		return nil, err
	}
	for {
		line, start, err := rd.nextMax(-1)
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("read session %s: %w", name, err)
		}
		if len(line) > 0 {
			atEOF := errors.Is(err, io.EOF)
			if atEOF && line[len(line)-1] == '\n' {
				panic("a complete line at EOF")
			}
			d := decodeLine(line, 0, nil)
			if out.addDecoded(&d, rd.n, start) {
				out.Entries = append(out.Entries, d.entry)
			}
		}
		if err != nil {
			break
		}
	}
	out.Size = rd.off
	out.migrate()
	return out, nil
}

// randomSession writes a header and n lines of every kind: entries of up
// to about maxLine bytes, blank and corrupt lines, and maybe a torn tail.
func randomSession(rng *rand.Rand, version, n, maxLine int) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"type":"session","version":%d,"id":"s","timestamp":"t","cwd":"/"}`+"\n", version)
	for i := range n {
		switch rng.IntN(40) {
		case 0:
			b.WriteString(" \t\n")
		case 1:
			b.WriteString(`{"type":"message","id":` + "\n")
		case 2:
			fmt.Fprintf(&b, `{"type":"custom","customType":"x","data":%d}`+"\n", i)
		default:
			fmt.Fprintf(&b, `{"type":"message","id":"%08x","parentId":null,"timestamp":"t","message":{"role":"user","content":%q}}`+"\n",
				i, strings.Repeat("é\"x", rng.IntN(maxLine)/5))
		}
	}
	switch rng.IntN(3) {
	case 0:
		b.WriteString(`{"type":"custom","customType":"x","id":"torn1234"}`)
	case 1:
		b.WriteString(`{"type":"message","id":"torn5678","mess`)
	}
	return b.Bytes()
}

// Small chunks make every case common: many chunks in flight, lines
// longer than a chunk, a torn or corrupt tail at a chunk's end.
func TestReadChunksMatchLineByLine(t *testing.T) {
	defer func(size int) { chunkSize = size }(chunkSize)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, size := range []int{1, 64, 1000, 4096, chunkSize} {
		chunkSize = size
		for i, n := range []int{0, 1, 3, 50, 400} {
			data := randomSession(rng, 1+i%3, n, min(30*size, 3000))
			sameAsLineByLine(t, data, fmt.Sprintf("chunks of %d, %d lines", size, n))
		}
	}
	// A buffer grown for one long line ends with much of the next: the
	// chunk after it must take all of that.
	chunkSize = 100
	var b bytes.Buffer
	b.WriteString(`{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/"}` + "\n")
	for i, n := range []int{10, 1000, 1000, 1000, 10, 3000, 10, 10, 10, 10, 2000} {
		fmt.Fprintf(&b, `{"type":"custom","customType":"x","id":"%08x","data":"%s"}`+"\n", i, strings.Repeat("y", n))
	}
	sameAsLineByLine(t, b.Bytes(), "long lines")
}

func sameAsLineByLine(t *testing.T, data []byte, what string) {
	t.Helper()
	want, err := readLineByLine(bytes.NewReader(data), "s.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for name, r := range map[string]io.Reader{"whole": bytes.NewReader(data), "half": iotest.HalfReader(bytes.NewReader(data))} {
		got, err := Read(r, "s.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s, %s reader, %d bytes: the chunked read differs (%d entries, %d warnings; want %d, %d)",
				what, name, len(data), len(got.Entries), len(got.Warnings), len(want.Entries), len(want.Warnings))
		}
	}
}

// A reused buffer smaller than the partial line carried into it grows.
func TestReadChunksCarryIntoSmallBuffer(t *testing.T) {
	long := strings.Repeat("x", 3*chunkSize)
	cr := &chunkReader{r: strings.NewReader(long + "\nend\n"), carry: []byte("start"), off: 5}
	c := &chunk{buf: make([]byte, chunkSize)}
	if err := cr.fill(c); err != nil {
		t.Fatal(err)
	}
	if want := "start" + long + "\nend\n"; string(c.data) != want || c.off != 0 || !cr.eof {
		t.Fatalf("got %d bytes at %d, eof %v; want %d at 0, eof", len(c.data), c.off, cr.eof, len(want))
	}
	cr = &chunkReader{r: strings.NewReader("end\n"), carry: []byte(long), off: int64(len(long))}
	c = &chunk{buf: make([]byte, chunkSize)}
	if err := cr.fill(c); err != nil {
		t.Fatal(err)
	}
	if string(c.data) != long+"end\n" {
		t.Fatalf("got %d bytes, want %d", len(c.data), len(long)+4)
	}
}

// A read error anywhere is returned, and no worker is left behind (goleak
// checks that after the tests).
func TestReadChunksError(t *testing.T) {
	defer func(size int) { chunkSize = size }(chunkSize)
	chunkSize = 4096
	data := randomSession(rand.New(rand.NewPCG(3, 4)), 3, 1000, 3000)
	for _, at := range []int{100, len(data) / 3, len(data) - 10} {
		r := io.MultiReader(bytes.NewReader(data[:at]), iotest.ErrReader(errors.New("disk on fire")))
		_, err := Read(r, "s.jsonl")
		if err == nil || !strings.Contains(err.Error(), "disk on fire") || !strings.Contains(err.Error(), "s.jsonl") {
			t.Fatalf("error at %d: %v", at, err)
		}
	}
}

// A file of short lines first and very long ones after keeps no slice
// sized for short lines throughout.
func TestEntriesCapacityFollowsTheEntriesRead(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}` + "\n")
	parent := "null"
	for i := range 2000 {
		id := fmt.Sprintf("%08x", i+1)
		fmt.Fprintf(&b, `{"type":"thinking_level_change","id":"%s","parentId":%s,"timestamp":"2026-01-01T00:00:00.000Z","thinkingLevel":"low"}`+"\n", id, parent)
		parent = `"` + id + `"`
	}
	long := strings.Repeat("x", 1<<20)
	for i := range 20 {
		id := fmt.Sprintf("%08x", 5000+i)
		fmt.Fprintf(&b, `{"type":"custom","id":"%s","parentId":%s,"timestamp":"2026-01-01T00:00:00.000Z","customType":"k","data":"%s"}`+"\n", id, parent, long)
		parent = `"` + id + `"`
	}
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Entries) != 2020 || cap(f.Entries) > 2*len(f.Entries)+appendRoom {
		t.Fatalf("%d entries in a slice of capacity %d", len(f.Entries), cap(f.Entries))
	}
}

// An empty line is skipped and nothing else with it: the entries after it
// in the same chunk, or in later ones, are all read.
func TestBlankLinesLoseNothing(t *testing.T) {
	defer func(size int) { chunkSize = size }(chunkSize)
	var b strings.Builder
	b.WriteString(`{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/"}` + "\n")
	parent := "null"
	for i := range 12 {
		if i%3 == 0 {
			b.WriteString("\n")
		}
		id := fmt.Sprintf("%08x", i+1)
		fmt.Fprintf(&b, `{"type":"thinking_level_change","id":"%s","parentId":%s,"timestamp":"t","thinkingLevel":"low"}`+"\n", id, parent)
		parent = `"` + id + `"`
	}
	b.WriteString("\n")
	data := b.String()
	for _, size := range []int{chunkSize, 300} {
		chunkSize = size
		f, err := Read(strings.NewReader(data), "s.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		if len(f.Entries) != 12 || len(f.Warnings) != 0 || f.Size != int64(len(data)) || f.NeedsNewline {
			t.Errorf("chunks of %d: %d entries, warnings %v, %d of %d bytes, needs newline %v; want 12 entries and no warning",
				size, len(f.Entries), f.Warnings, f.Size, len(data), f.NeedsNewline)
		}
		sameAsLineByLine(t, []byte(data), fmt.Sprintf("blank lines, chunks of %d", size))
	}
}

// A file of many chunks of like lines is read into one slice sized from
// the first chunk and the file's size: at most 5% and the append room
// to spare, not the slack of a slice grown entry by entry.
func TestEntriesCapacityEstimatedFromTheFileSize(t *testing.T) {
	fdcheck.Check(t)
	var b strings.Builder
	b.WriteString(`{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}` + "\n")
	parent := "null"
	for i := range 5000 {
		id := fmt.Sprintf("%08x", i+1)
		fmt.Fprintf(&b, `{"type":"thinking_level_change","id":"%s","parentId":%s,"timestamp":"2026-01-01T00:00:00.000Z","thinkingLevel":"low"}`+"\n", id, parent)
		parent = `"` + id + `"`
	}
	if b.Len() < 2*chunkSize {
		t.Fatalf("%d bytes is not several chunks of %d", b.Len(), chunkSize)
	}
	path := filepath.Join(t.TempDir(), "s.jsonl")
	mustDo(t, os.WriteFile(path, []byte(b.String()), 0o600))
	f, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(f.Entries); n != 5000 || cap(f.Entries) > n*21/20+appendRoom+1 {
		t.Fatalf("%d entries in a slice of capacity %d", n, cap(f.Entries))
	}
}
