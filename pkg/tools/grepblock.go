package tools

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"math"
	"strconv"
)

// hitBlock is one match as grep prints it: the lines before it, the
// matching line and the lines after, already formatted.
type hitBlock struct {
	line  int // the matching line's number
	lines []string
	size  int  // bytes it adds to the output, newlines included
	cut   bool // some line was cut to GrepMaxLineLength
}

// fileResult is what a worker found in one file: the blocks that grep
// could print from it (those a search starting at this file would print;
// a search with output before prints a prefix of them) and how many lines
// were found to match: all of them when counted is set.
type fileResult struct {
	blocks  []hitBlock
	total   int
	counted bool
	err     error // the search was cancelled
}

// tally is what decides how much of a file grep prints: matches taken and
// bytes printed so far, against the limits.
type tally struct {
	limit, context  int
	matches, output int
}

// done says no more output is wanted: the match limit or twice the byte
// limit (the rest would be truncated anyway) is reached.
func (t *tally) done() bool { return t.matches >= t.limit || t.output > 2*DefaultMaxBytes }

// take replays, for the n matching lines of one file (lineOf gives their
// numbers), the line-by-line search grep has always done: a match is
// taken while the limit allows; each block is printed once its lines
// after are read, in order; the file is left, and the search stopped,
// at the first line where enough is printed and no block waits. emit
// prints block i and returns its size. It returns how many matches were
// taken and whether the search stops.
func (t *tally) take(n int, lineOf func(int) int, emit func(int) int) (taken int, stop bool) {
	first := 0 // the first taken block not printed yet
	flush := func(upTo int) {
		for first < taken && lineOf(first)+t.context <= upTo {
			t.output += emit(first)
			first++
		}
	}
	for i := 0; i < n && t.matches < t.limit; i++ {
		m := lineOf(i)
		for first < taken && lineOf(first)+t.context < m {
			flush(lineOf(first) + t.context)
			if first == taken && t.done() {
				return taken, true
			}
		}
		flush(m)
		t.matches++
		taken++
		flush(m)
		if first == taken && t.done() {
			return taken, true
		}
	}
	flush(math.MaxInt)
	return taken, t.done()
}

// render formats the blocks a search starting at this file would print.
func (w *grepWorker) render(buf []byte, shown string) fileResult {
	res := fileResult{total: w.total, counted: w.counted}
	t := tally{limit: w.spec.limit, context: w.spec.context}
	t.take(len(w.hits), func(i int) int { return w.hits[i].n }, func(i int) int {
		b := w.block(buf, shown, w.hits[i])
		res.blocks = append(res.blocks, b)
		return b.size
	})
	return res
}

// block formats one match with its context lines.
func (w *grepWorker) block(buf []byte, shown string, h lineHit) hitBlock {
	b := hitBlock{line: h.n}
	var starts []int // the lines before, nearest first
	for p := h.start; len(starts) < w.spec.context && p > 0; {
		p = bytes.LastIndexByte(buf[:p-1], '\n') + 1
		starts = append(starts, p)
	}
	for k := len(starts) - 1; k >= 0; k-- {
		end := starts[k] + bytes.IndexByte(buf[starts[k]:], '\n')
		b.add(w.spec.secrets, shown, h.n-k-1, grepLine(buf[starts[k]:end]), '-')
	}
	b.add(w.spec.secrets, shown, h.n, grepLine(buf[h.start:h.end]), ':')
	for k, p := 1, h.end; k <= w.spec.context && p < len(buf); k++ {
		start := p + 1
		p = len(buf)
		if i := bytes.IndexByte(buf[start:], '\n'); i >= 0 {
			p = start + i
		}
		b.add(w.spec.secrets, shown, h.n+k, grepLine(buf[start:p]), '-')
	}
	return b
}

// add formats one line (as grep reads it) as pi: "path:12: text" for a match, "path-11- text"
// for context. The line is scrubbed before it is cut, which could halve a
// key.
func (b *hitBlock) add(secrets *Secrets, shown string, n int, line []byte, sep byte) {
	text, cut := truncateLine(validUTF8(secrets.Scrub(string(line))), GrepMaxLineLength)
	b.cut = b.cut || cut
	s := shown + string(sep) + strconv.Itoa(n) + string(sep) + " " + text
	b.lines = append(b.lines, s)
	b.size += len(s) + 1
}

// stream searches a file too big to read whole, line by line as grep
// always did, keeping what it needs for the context of the matches. Its
// matching lines are not counted past those it takes.
func (w *grepWorker) stream(ctx context.Context, f io.Reader, shown string) fileResult {
	r := bufio.NewReaderSize(f, 64<<10)
	if head, _ := r.Peek(sniffBytes); bytes.IndexByte(head, 0) >= 0 {
		return fileResult{}
	}
	s := &streamState{spec: w.spec, shown: shown,
		t: tally{limit: w.spec.limit, context: w.spec.context}}
	for n := 1; ; n++ {
		if n%4096 == 0 && ctx.Err() != nil {
			return fileResult{err: ctx.Err()}
		}
		line, _, more, err := readLine(r, grepMaxLineBytes, maxScanBytes)
		if err != nil {
			return s.res // what was printed stays, the blocks still open are lost, as before
		}
		s.line(n, bytes.TrimSuffix(line, []byte{'\r'}))
		if !more || (s.t.done() && len(s.open) == 0) {
			break
		}
	}
	s.res.blocks = append(s.res.blocks, s.open...)
	s.res.total = s.t.matches
	return s.res
}

// streamState is a streamed search's blocks and lines kept for context.
type streamState struct {
	spec   *grepSpec
	shown  string
	t      tally
	res    fileResult
	before [][]byte   // the last lines, for the context before a match
	open   []hitBlock // blocks waiting for their lines after
}

func (s *streamState) line(n int, line []byte) {
	for i := range s.open {
		s.open[i].add(s.spec.secrets, s.shown, n, line, '-')
	}
	s.flush(n)
	if s.t.matches < s.t.limit && s.spec.re.Match(line) {
		s.t.matches++
		b := hitBlock{line: n}
		for k, l := range s.before {
			b.add(s.spec.secrets, s.shown, n-len(s.before)+k, l, '-')
		}
		b.add(s.spec.secrets, s.shown, n, line, ':')
		s.open = append(s.open, b)
		s.flush(n)
	}
	if s.t.context > 0 {
		s.before = append(s.before, bytes.Clone(line))
		if len(s.before) > s.t.context {
			s.before = s.before[1:]
		}
	}
}

// flush passes on the blocks complete at line n, in order.
func (s *streamState) flush(n int) {
	for len(s.open) > 0 && s.open[0].line+s.t.context <= n {
		s.t.output += s.open[0].size
		s.res.blocks = append(s.res.blocks, s.open[0])
		s.open = s.open[1:]
	}
}
