package tools

import (
	"fmt"
	"os"
)

// DefaultMaxSpillBytes bounds one spill file on disk: a command that
// prints without end fills neither the disk nor the temp folder.
const DefaultMaxSpillBytes = 50 << 20

// Room of a bounded spill file: its tail ring is at most spillTailMax
// bytes (held in memory until the file is closed), and spillMarkRoom is
// kept for the line that says what was cut.
const (
	minSpillBytes = 64 << 10
	spillTailMax  = 1 << 20
	spillMarkRoom = 256
)

// spillFile is the on-disk copy of a command's output, at most max bytes:
// the first bytes go straight to the file; once its head is full, the
// last bytes are kept in a ring and written at close after a line that
// says how much was cut from the middle.
type spillFile struct {
	f       *os.File
	head    int // most bytes written before the tail
	written int // bytes written to the head
	tail    byteRing
	dropped int // bytes of the middle that were cut
	err     error
}

func newSpillFile(f *os.File, limit int) *spillFile {
	limit = max(limit, minSpillBytes)
	tail := min(spillTailMax, limit/4)
	return &spillFile{f: f, head: limit - tail - spillMarkRoom, tail: byteRing{size: tail}}
}

func (s *spillFile) write(p []byte) {
	if room := s.head - s.written; room > 0 {
		n := min(room, len(p))
		s.writeFile(p[:n])
		s.written += n
		p = p[n:]
	}
	if len(p) > 0 {
		s.dropped += s.tail.write(p)
	}
}

func (s *spillFile) writeFile(p []byte) {
	if _, err := s.f.Write(p); err != nil && s.err == nil {
		s.err = fmt.Errorf("write %s: %w", s.f.Name(), err)
	}
}

// truncated says the file lacks part of the output.
func (s *spillFile) truncated() bool { return s.dropped > 0 }

// close writes the tail, after the cut's notice when there was one.
func (s *spillFile) close() {
	if s.truncated() {
		total := s.written + s.dropped + s.tail.n
		s.writeFile(fmt.Appendf(nil, "\n\n[Output truncated: %d bytes cut here. The command wrote %d bytes; this file keeps the first %d and the last %d.]\n\n",
			s.dropped, total, s.written, s.tail.n))
	}
	first, second := s.tail.parts()
	s.writeFile(first)
	s.writeFile(second)
	if err := s.f.Close(); err != nil && s.err == nil {
		s.err = fmt.Errorf("close %s: %w", s.f.Name(), err)
	}
}

// notice names the file for a result: whole, or what it keeps.
func (s *spillFile) notice() string {
	if s.err != nil {
		return fmt.Sprintf("Output only partly saved (%v): %s", s.err, s.f.Name())
	}
	if !s.truncated() {
		return "Full output: " + s.f.Name()
	}
	return fmt.Sprintf("Output truncated to its first %s and last %s: %s",
		formatSize(s.written), formatSize(s.tail.n), s.f.Name())
}

// byteRing keeps the last size bytes written to it; its buffer is made on
// the first write.
type byteRing struct {
	size     int
	buf      []byte
	start, n int
}

// write adds p and returns how many older bytes fell out.
func (r *byteRing) write(p []byte) (dropped int) {
	if r.buf == nil {
		r.buf = make([]byte, r.size)
	}
	if len(p) >= r.size {
		dropped = r.n + len(p) - r.size
		r.start, r.n = 0, copy(r.buf, p[len(p)-r.size:])
		return dropped
	}
	if over := r.n + len(p) - r.size; over > 0 {
		r.start = (r.start + over) % r.size
		r.n -= over
		dropped = over
	}
	at := (r.start + r.n) % r.size
	k := copy(r.buf[at:], p)
	copy(r.buf, p[k:])
	r.n += len(p)
	return dropped
}

// parts returns the kept bytes, oldest first, in two pieces.
func (r *byteRing) parts() ([]byte, []byte) {
	if r.start+r.n <= r.size {
		return r.buf[r.start : r.start+r.n], nil
	}
	return r.buf[r.start:], r.buf[:r.start+r.n-r.size]
}
