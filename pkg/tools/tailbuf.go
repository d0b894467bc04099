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
// the output is over the limits, the whole of it in a 0600 temp file.
type outputSink struct {
	ring     []byte
	total    int // bytes seen
	newlines int // '\n' seen
	lastLine int // bytes since the last '\n'
	tempDir  string
	spill    *os.File
	spillErr error
}

func newOutputSink(tempDir string) *outputSink {
	return &outputSink{tempDir: tempDir} // the ring grows as output arrives
}

// write takes one chunk of output (at most readChunk bytes).
func (s *outputSink) write(p []byte) {
	s.total += len(p)
	if n := bytes.Count(p, []byte{'\n'}); n > 0 {
		s.newlines += n
		s.lastLine = len(p) - bytes.LastIndexByte(p, '\n') - 1
	} else {
		s.lastLine += len(p)
	}
	if drop := len(s.ring) + len(p) - ringCap; drop > 0 {
		s.ring = s.ring[:copy(s.ring, s.ring[drop:])]
	}
	s.ring = append(s.ring, p...)
	switch {
	case s.spill != nil:
		s.spillWrite(p)
	case s.spillErr == nil && s.overLimits():
		s.startSpill()
	}
}

func (s *outputSink) overLimits() bool {
	return s.total > DefaultMaxBytes || s.newlines >= DefaultMaxLines
}

// startSpill creates the temp file and writes everything so far, which is
// still all in the ring.
func (s *outputSink) startSpill() {
	f, err := os.CreateTemp(s.tempDir, "gopi-bash-*.log")
	if err != nil {
		s.spillErr = fmt.Errorf("create temp file in %s: %w", s.tempDir, err)
		return
	}
	s.spill = f
	s.spillWrite(s.ring)
}

func (s *outputSink) spillWrite(p []byte) {
	if _, err := s.spill.Write(p); err != nil && s.spillErr == nil {
		s.spillErr = fmt.Errorf("write %s: %w", s.spill.Name(), err)
	}
}

// close finishes the temp file, if any.
func (s *outputSink) close() {
	if s.spill == nil {
		return
	}
	if err := s.spill.Close(); err != nil && s.spillErr == nil {
		s.spillErr = fmt.Errorf("close %s: %w", s.spill.Name(), err)
	}
}

func (s *outputSink) spillPath() string {
	if s.spill == nil {
		return ""
	}
	return s.spill.Name()
}

// tail returns the shown end of the output, valid UTF-8, with pi's
// truncation notice; invalid says bytes were replaced.
func (s *outputSink) tail() (text string, tr Truncation, invalid bool) {
	tr = truncateTail(string(s.ring), DefaultMaxLines, DefaultMaxBytes)
	tr.TotalLines, tr.TotalBytes = s.newlines+1, s.total
	text = validUTF8(tr.Content)
	invalid = text != tr.Content
	tr.Content = ""
	return text, tr, invalid
}

// notice is pi's truncation notice for the tail.
func (s *outputSink) notice(tr Truncation) string {
	full := s.spillPath()
	if full == "" {
		full = fmt.Sprintf("not saved (%v)", s.spillErr)
	}
	end := tr.TotalLines
	switch {
	case tr.LastLinePartial:
		return fmt.Sprintf("[Showing last %s of line %d (line is %s). Full output: %s]",
			formatSize(tr.OutputBytes), end, formatSize(s.lastLine), full)
	case tr.TruncatedBy == "lines":
		return fmt.Sprintf("[Showing lines %d-%d of %d. Full output: %s]", end-tr.OutputLines+1, end, end, full)
	}
	return fmt.Sprintf("[Showing lines %d-%d of %d (%s limit). Full output: %s]",
		end-tr.OutputLines+1, end, end, formatSize(DefaultMaxBytes), full)
}
