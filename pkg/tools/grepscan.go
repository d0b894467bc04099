package tools

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io/fs"
)

// grepMaxLineBytes bounds how much of one line grep reads and matches.
const grepMaxLineBytes = 64 << 10

// searcher collects grep output across files. Every match gets its own
// block of context lines, as pi prints them.
type searcher struct {
	re       interface{ Match([]byte) bool }
	limit    int
	context  int
	matches  int
	out      []string
	outBytes int
	linesCut bool
	secrets  *Secrets // scrubbed before a long line is cut, which could halve a key
}

// block is one match waiting for its lines after.
type block struct {
	lines []string
	after int
}

// file searches one file; it returns fs.SkipAll once the limit is reached.
func (s *searcher) file(ctx context.Context, abs, shown string) error {
	f, _, err := openRegular(abs)
	if err != nil {
		return nil // unreadable files, pipes and devices are skipped, as rg does
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	if head, _ := r.Peek(sniffBytes); bytes.IndexByte(head, 0) >= 0 {
		return nil // binary
	}
	var before []ctxLine
	var open []*block
	for n := 1; ; n++ {
		if n%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		line, _, more, err := readLine(r, grepMaxLineBytes, maxScanBytes)
		if err != nil {
			return nil
		}
		line = bytes.TrimSuffix(line, []byte{'\r'})
		open = s.feedContext(open, shown, n, line)
		if s.matches < s.limit && s.re.Match(line) {
			s.matches++
			b := &block{after: s.context}
			for _, c := range before {
				b.lines = append(b.lines, s.format(shown, c.n, c.text, '-'))
			}
			b.lines = append(b.lines, s.format(shown, n, line, ':'))
			open = s.flushDone(append(open, b))
		}
		before = s.keepBefore(before, n, line)
		if !more || (s.done() && len(open) == 0) {
			break
		}
	}
	for _, b := range open {
		s.emit(b)
	}
	if s.done() {
		return fs.SkipAll
	}
	return nil
}

// done says no more output is wanted: the match limit or twice the byte
// limit (the rest would be truncated anyway) is reached.
func (s *searcher) done() bool { return s.matches >= s.limit || s.outBytes > 2*DefaultMaxBytes }

// feedContext gives line n to the blocks still waiting for lines after.
func (s *searcher) feedContext(open []*block, shown string, n int, line []byte) []*block {
	for _, b := range open {
		b.lines = append(b.lines, s.format(shown, n, line, '-'))
		b.after--
	}
	return s.flushDone(open)
}

// flushDone emits the finished blocks at the front, keeping output order.
func (s *searcher) flushDone(open []*block) []*block {
	for len(open) > 0 && open[0].after <= 0 {
		s.emit(open[0])
		open = open[1:]
	}
	return open
}

func (s *searcher) emit(b *block) {
	for _, l := range b.lines {
		s.out = append(s.out, l)
		s.outBytes += len(l) + 1
	}
}

// ctxLine is a line kept for the context before a match.
type ctxLine struct {
	n    int
	text []byte
}

func (s *searcher) keepBefore(before []ctxLine, n int, line []byte) []ctxLine {
	if s.context == 0 {
		return nil
	}
	before = append(before, ctxLine{n, bytes.Clone(line)})
	if len(before) > s.context {
		before = before[1:]
	}
	return before
}

// format renders one line as pi: "path:12: text" for a match,
// "path-11- text" for context.
func (s *searcher) format(shown string, n int, line []byte, sep byte) string {
	text, cut := truncateLine(validUTF8(s.secrets.Scrub(string(line))), GrepMaxLineLength)
	if cut {
		s.linesCut = true
	}
	return fmt.Sprintf("%s%c%d%c %s", shown, sep, n, sep, text)
}
