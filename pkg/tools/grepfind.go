package tools

import (
	"bytes"
	"strings"
)

// commonBytes are the bytes of source text, most frequent first (measured
// on Go's source tree); a byte not listed is rarer than all of them.
const commonBytes = " etr\tni\nasocl,0fdup.x()/hmg=\"b1STy{}E_2:CIvA4Pkw6R3OND8F5LM9[]7B-*\\HGU"

// byteRank is how common a byte is: higher is rarer.
func byteRank(b byte) int {
	if i := strings.IndexByte(commonBytes, b); i >= 0 {
		return i
	}
	return len(commonBytes)
}

// litFinder finds one literal in a buffer by its rarest byte: the SIMD
// IndexByte skips to each occurrence of that byte (either case of it for
// a folded literal) and the literal is compared around it. Not safe for
// concurrent use: it caches where the byte occurs next.
type litFinder struct {
	pat    []byte // lower case when fold
	fold   bool
	off    int  // offset of the rare byte in pat
	lo, up byte // the rare byte; up == lo unless it is a folded letter
	nextLo int  // next occurrence of lo at or after the last search; -1 none; -2 not known
	nextUp int
}

func newLitFinder(l lit) *litFinder {
	f := &litFinder{pat: []byte(l.s), fold: l.fold, nextLo: -2, nextUp: -2}
	best := -1
	for i, c := range f.pat {
		r := byteRank(c)
		if f.fold && c >= 'a' && c <= 'z' {
			r = min(r, byteRank(c-0x20)) // the pair is as common as its commoner half
		}
		if r > best {
			best, f.off = r, i
		}
	}
	f.lo, f.up = f.pat[f.off], f.pat[f.off]
	if f.fold && f.lo >= 'a' && f.lo <= 'z' {
		f.up = f.lo - 0x20
	}
	return f
}

// reset forgets the cached positions; call it for every new buffer.
func (f *litFinder) reset() { f.nextLo, f.nextUp = -2, -2 }

// index returns the first occurrence of the literal in buf at or after
// from, or -1. Successive calls on one buffer must not go backwards.
func (f *litFinder) index(buf []byte, from int) int {
	if !f.fold {
		return f.indexExact(buf, from)
	}
	return f.indexFold(buf, from)
}

// indexExact is index for a literal without case folding: one IndexByte
// per occurrence of the rare byte, then the last byte and the rest
// compared.
func (f *litFinder) indexExact(buf []byte, from int) int {
	n, off, last := len(f.pat), f.off, f.pat[len(f.pat)-1]
	stop := len(buf) - n + off + 1 // the rare byte cannot sit at or after stop
	for i := from + off; i < stop; {
		j := bytes.IndexByte(buf[i:stop], f.lo)
		if j < 0 {
			return -1
		}
		start := i + j - off
		if buf[start+n-1] == last && string(buf[start:start+n]) == string(f.pat) {
			return start
		}
		i += j + 1
	}
	return -1
}

// indexFold is index for a folded literal: the two cases of the rare
// byte are two IndexByte streams, each searched again only once passed.
func (f *litFinder) indexFold(buf []byte, from int) int {
	n, off := len(f.pat), f.off
	first, last := f.pat[0], f.pat[n-1]
	stop := len(buf) - n + off + 1
	lo, up := f.nextLo, f.nextUp
	defer func() { f.nextLo, f.nextUp = lo, up }()
	for i := from + off; i < stop; {
		if lo != -1 && lo < i {
			lo = indexFrom(buf[:stop], i, f.lo)
		}
		if up != -1 && up < i {
			up = indexFrom(buf[:stop], i, f.up)
		}
		p := lo
		if p < 0 || up >= 0 && up < p {
			p = up
		}
		if p < 0 {
			return -1
		}
		start := p - off
		if lowerASCII(buf[start]) == first && lowerASCII(buf[start+n-1]) == last && f.equal(buf[start:start+n]) {
			return start
		}
		i = p + 1
	}
	return -1
}

// indexFrom is the first position of b in buf at or after at, or -1.
func indexFrom(buf []byte, at int, b byte) int {
	if i := bytes.IndexByte(buf[at:], b); i >= 0 {
		return at + i
	}
	return -1
}

func lowerASCII(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c | 0x20
	}
	return c
}

// equal compares a folded literal.
func (f *litFinder) equal(s []byte) bool {
	for i, c := range s {
		if lowerASCII(c) != f.pat[i] {
			return false
		}
	}
	return true
}

// litSetFinder finds the first occurrence of any of several literals.
type litSetFinder struct {
	fs   []*litFinder
	next []int // each finder's next occurrence at or after the last from; -1 none; -2 not known
}

func newLitSetFinder(ls []lit) *litSetFinder {
	s := &litSetFinder{next: make([]int, len(ls))}
	for _, l := range ls {
		s.fs = append(s.fs, newLitFinder(l))
	}
	return s
}

func (s *litSetFinder) reset() {
	for i, f := range s.fs {
		f.reset()
		s.next[i] = -2
	}
}

// index returns where the first of the literals starts at or after from,
// or -1.
func (s *litSetFinder) index(buf []byte, from int) int {
	best := -1
	for i, f := range s.fs {
		if s.next[i] == -2 || s.next[i] >= 0 && s.next[i] < from {
			s.next[i] = f.index(buf, from)
		}
		if p := s.next[i]; p >= 0 && (best < 0 || p < best) {
			best = p
		}
	}
	return best
}
