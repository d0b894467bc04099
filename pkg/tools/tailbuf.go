package tools

import (
	"bytes"
	"fmt"
	"os"
)

// ringCap is how much of the end of a command's output is kept in memory:
// twice what is shown, so the tail is cut at a line boundary.
const ringCap = 2 * DefaultMaxBytes

// readChunk is the pipe read size; it must stay below ringCap-DefaultMaxBytes
// so the output so far is all in the ring when spilling starts.
const readChunk = 32 << 10

// outputSink keeps the last ringCap bytes of a command's output and, once
// the output is over the limits, a copy of it in a 0600 temp file bounded
// to maxSpill bytes (head and tail; spillFile).
type outputSink struct {
	ring     []byte
	total    int // bytes seen
	newlines int // '\n' seen
	lastLine int // bytes since the last '\n'
	doneLine int // bytes of the last line a '\n' ended
	tempDir  string
	maxSpill int
	spill    *spillFile
	spillErr error
}

func newOutputSink(tempDir string, maxSpill int) *outputSink {
	return &outputSink{tempDir: tempDir, maxSpill: maxSpill} // the ring grows as output arrives
}

// write takes output in pieces of any size.
func (s *outputSink) write(p []byte) {
	for len(p) > readChunk {
		s.writeChunk(p[:readChunk])
		p = p[readChunk:]
	}
	s.writeChunk(p)
}

// writeChunk takes one chunk of output (at most readChunk bytes).
func (s *outputSink) writeChunk(p []byte) {
	s.total += len(p)
	if n := bytes.Count(p, []byte{'\n'}); n > 0 {
		last := bytes.LastIndexByte(p, '\n')
		if prev := bytes.LastIndexByte(p[:last], '\n'); prev >= 0 {
			s.doneLine = last - prev - 1
		} else {
			s.doneLine = s.lastLine + last
		}
		s.newlines += n
		s.lastLine = len(p) - last - 1
	} else {
		s.lastLine += len(p)
	}
	if drop := len(s.ring) + len(p) - ringCap; drop > 0 {
		s.ring = s.ring[:copy(s.ring, s.ring[drop:])]
	}
	s.ring = append(s.ring, p...)
	switch {
	case s.spill != nil:
		s.spill.write(p)
	case s.spillErr == nil && s.overLimits():
		s.startSpill()
	}
}

func (s *outputSink) overLimits() bool {
	return s.total > DefaultMaxBytes || s.lines() > DefaultMaxLines
}

// lines counts the output's lines as pi 1.6 does: a final '\n' ends the
// last line rather than starting another, and no output has no lines.
func (s *outputSink) lines() int {
	if s.lastLine > 0 {
		return s.newlines + 1
	}
	return s.newlines
}

// lastLineSize is the size of the output's last line, as lines counts
// it: the one a final '\n' ended, if the output ends in one.
func (s *outputSink) lastLineSize() int {
	if s.lastLine > 0 || s.newlines == 0 {
		return s.lastLine
	}
	return s.doneLine
}

// startSpill creates the temp file (and the run's temp folder, the first
// time) and writes everything so far, which is still all in the ring.
func (s *outputSink) startSpill() {
	if err := os.MkdirAll(s.tempDir, 0o700); err != nil {
		s.spillErr = fmt.Errorf("create temp folder %s: %w", s.tempDir, err)
		return
	}
	f, err := os.CreateTemp(s.tempDir, "gopi-bash-*.log")
	if err != nil {
		s.spillErr = fmt.Errorf("create temp file in %s: %w", s.tempDir, err)
		return
	}
	s.spill = newSpillFile(f, s.maxSpill)
	s.spill.write(s.ring)
}

// close finishes the temp file, if any.
func (s *outputSink) close() {
	if s.spill == nil {
		return
	}
	s.spill.close()
	if s.spillErr == nil {
		s.spillErr = s.spill.err
	}
}

func (s *outputSink) spillPath() string {
	if s.spill == nil {
		return ""
	}
	return s.spill.f.Name()
}

// tail returns the shown end of the output, valid UTF-8 (tr.Content too,
// as pi's details carry it); invalid says bytes were replaced.
func (s *outputSink) tail() (text string, tr Truncation, invalid bool) {
	tr = truncateTail(string(s.ring), DefaultMaxLines, DefaultMaxBytes)
	tr.TotalLines, tr.TotalBytes = s.lines(), s.total
	text = validUTF8(tr.Content)
	invalid = text != tr.Content
	tr.Content = text
	return text, tr, invalid
}

// notice is pi's truncation notice for the tail.
func (s *outputSink) notice(tr Truncation) string {
	full := fmt.Sprintf("Full output: not saved (%v)", s.spillErr)
	if s.spill != nil {
		full = s.spill.notice()
	}
	end := tr.TotalLines
	switch {
	case tr.LastLinePartial && tr.OutputLines == 1:
		return fmt.Sprintf("[Showing last %s of line %d (line is %s). %s]",
			formatSize(tr.OutputBytes), end, formatSize(s.lastLineSize()), full)
	case tr.LastLinePartial:
		return fmt.Sprintf("[Showing the last %s of the output: the end of line %d, longer than the %s limit. %s]",
			formatSize(tr.OutputBytes), end-tr.OutputLines+1, formatSize(DefaultMaxBytes), full)
	case tr.TruncatedBy == "lines":
		return fmt.Sprintf("[Showing lines %d-%d of %d. %s]", end-tr.OutputLines+1, end, end, full)
	}
	return fmt.Sprintf("[Showing lines %d-%d of %d (%s limit). %s]",
		end-tr.OutputLines+1, end, end, formatSize(DefaultMaxBytes), full)
}
