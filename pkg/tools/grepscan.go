package tools

import (
	"bytes"
	"context"
	"errors"
	"regexp"
)

const (
	// grepMaxLineBytes bounds how much of one line grep reads and matches.
	grepMaxLineBytes = 64 << 10
	// grepWholeFile is the largest file grep reads whole into memory;
	// a larger one is read and matched line by line.
	grepWholeFile = 16 << 20
	// grepKeepBuf is the largest buffer a worker keeps between files.
	grepKeepBuf = 1 << 20
	// grepCountBudget bounds the candidate lines a worker goes on deciding
	// past the limit, only to count the matches a notice reports.
	grepCountBudget = 10000
)

// grepSpec is what every file of one search is matched with; it is shared
// by the workers and never changed.
type grepSpec struct {
	re      *regexp.Regexp // decides every line, as grep always did
	lits    []lit          // every match holds one of them; nil when none is known
	wide    *regexp.Regexp // finds candidate lines in a whole buffer; nil when it could not be built
	ends    bool           // wide may miss a match at the cut of a line longer than grepMaxLineBytes
	dollar  bool           // wide may miss a match at the end of a line ending in "\r"
	limit   int
	context int
	secrets *Secrets
}

func newGrepSpec(re *regexp.Regexp, expr string, limit, context int, secrets *Secrets) *grepSpec {
	s := &grepSpec{re: re, limit: limit, context: context, secrets: secrets}
	if parsed, err := syntaxParse(expr); err == nil {
		s.lits = requiredLits(parsed)
	}
	if s.lits == nil {
		s.wide, s.ends, s.dollar = widePattern(expr)
	}
	return s
}

// lineHit is one matching line: its bytes are buf[start:end] (end is its
// newline or the end of the file) and n its number.
type lineHit struct{ start, end, n int }

// grepWorker searches files one at a time with buffers it reuses, so
// scanning a file allocates nothing per line.
type grepWorker struct {
	spec    *grepSpec
	finder  *litSetFinder
	buf     []byte
	hits    []lineHit // the first limit matching lines of the file
	total   int       // its matching lines counted
	counted bool      // total counts them all
}

func newGrepWorker(spec *grepSpec) *grepWorker {
	w := &grepWorker{spec: spec}
	if spec.lits != nil {
		w.finder = newLitSetFinder(spec.lits)
	}
	return w
}

var errTooBig = errors.New("file grew past the whole-file bound")

// findHits finds the matching lines of buf: candidates come from the
// required literals or the wide pattern (or are every line when neither
// applies), and each candidate line is decided by the pattern itself on
// the line as grep reads it. Line numbers are counted only up to matches.
// Past the limit the matches are only counted, within grepCountBudget
// candidates.
func (w *grepWorker) findHits(ctx context.Context, buf []byte) error {
	w.hits, w.total, w.counted = w.hits[:0], 0, true
	everyLine := w.finder == nil && !w.wideFits(buf)
	if w.finder != nil {
		w.finder.reset()
	}
	n, counted := 1, 0
	for pos, tries, past := 0, 0, 0; pos <= len(buf); tries++ {
		if tries%1024 == 1023 && ctx.Err() != nil {
			return ctx.Err()
		}
		if len(w.hits) == w.spec.limit {
			if past++; past > grepCountBudget {
				w.counted = false
				break
			}
		}
		cand := pos
		switch {
		case everyLine:
		case w.finder != nil:
			cand = w.finder.index(buf, pos)
		default:
			if loc := w.spec.wide.FindIndex(buf[pos:]); loc != nil {
				cand = pos + loc[0]
			} else {
				cand = -1
			}
		}
		if cand < 0 {
			break
		}
		start := pos + bytes.LastIndexByte(buf[pos:cand], '\n') + 1
		end := len(buf)
		if i := bytes.IndexByte(buf[cand:], '\n'); i >= 0 {
			end = cand + i
		}
		if w.spec.re.Match(grepLine(buf[start:end])) {
			if len(w.hits) < w.spec.limit {
				n += bytes.Count(buf[counted:start], []byte{'\n'})
				counted = start
				w.hits = append(w.hits, lineHit{start, end, n})
			}
			w.total++
		}
		pos = end + 1
	}
	return nil
}

// wideFits says the wide pattern finds every matching line of buf.
func (w *grepWorker) wideFits(buf []byte) bool {
	s := w.spec
	return s.wide != nil && !(s.ends && mayHaveLongLine(buf)) && !(s.dollar && bytes.IndexByte(buf, '\r') >= 0)
}

// grepLine is a line as grep reads and matches it: at most
// grepMaxLineBytes of it, without a trailing carriage return.
func grepLine(line []byte) []byte {
	return bytes.TrimSuffix(line[:min(len(line), grepMaxLineBytes)], []byte{'\r'})
}

// mayHaveLongLine says buf may hold a line longer than grep reads: such a
// line covers a whole aligned half of that length with no newline.
func mayHaveLongLine(buf []byte) bool {
	const half = grepMaxLineBytes / 2
	for p := 0; p+half <= len(buf); p += half {
		if bytes.IndexByte(buf[p:p+half], '\n') < 0 {
			return true
		}
	}
	return false
}
