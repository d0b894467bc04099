package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"syscall"
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

// file searches one file. Unreadable files, pipes and devices are skipped,
// as rg does, and so are binary files (a NUL in the first block).
func (w *grepWorker) file(ctx context.Context, abs, shown string) fileResult {
	fd, size, err := openSearched(abs)
	if err != nil {
		return fileResult{}
	}
	defer syscall.Close(fd)
	if size > grepWholeFile {
		return w.stream(ctx, fdReader(fd), shown)
	}
	buf, err := w.readAll(fd, int(size))
	if errors.Is(err, errTooBig) {
		if _, err := syscall.Seek(fd, 0, io.SeekStart); err != nil {
			return fileResult{}
		}
		return w.stream(ctx, fdReader(fd), shown)
	}
	if err != nil || bytes.IndexByte(buf[:min(len(buf), sniffBytes)], 0) >= 0 {
		return fileResult{}
	}
	if err := w.findHits(ctx, buf); err != nil {
		return fileResult{err: err}
	}
	res := w.render(buf, shown)
	if cap(w.buf) > grepKeepBuf {
		w.buf = nil
	}
	return res
}

var errTooBig = errors.New("file grew past the whole-file bound")

// readAll reads the file to its end into the worker's buffer.
func (w *grepWorker) readAll(fd, size int) ([]byte, error) {
	if cap(w.buf) < size+512 {
		w.buf = make([]byte, 0, size+512) // room to see the end without growing
	}
	buf := w.buf[:0]
	for {
		if len(buf) == cap(buf) {
			if len(buf) > grepWholeFile {
				return nil, errTooBig
			}
			buf = append(buf, 0)[:len(buf)]
			w.buf = buf
		}
		want := cap(buf) - len(buf)
		n, err := fdReader(fd).Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		switch {
		case err == io.EOF:
			return buf, nil
		case err != nil:
			return nil, err
		case n < want && len(buf) >= size:
			return buf, nil // a short read of a regular file is its end: no read to hear it again
		}
	}
}

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

// openSearched opens a file the walk (or a stat) found regular, as
// openRegular does: without waiting on a pipe or terminal swapped in since,
// refusing what the descriptor shows is not a regular file. It returns the
// descriptor and the file's size.
func openSearched(path string) (int, int64, error) {
	fd, err := openNonblock(path)
	if err != nil {
		return -1, 0, err
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		syscall.Close(fd)
		return -1, 0, err
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		syscall.Close(fd)
		return -1, 0, &notRegularError{mode: modeOf(st.Mode)}
	}
	if err := clearNonblock(fd); err != nil {
		syscall.Close(fd)
		return -1, 0, err
	}
	return fd, st.Size, nil
}

// fdReader reads a descriptor without an *os.File around it.
type fdReader int

func (r fdReader) Read(p []byte) (int, error) {
	for {
		n, err := syscall.Read(int(r), p)
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case err != nil:
			return 0, err
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

// clearNonblock takes O_NONBLOCK off a descriptor openNonblock opened: its
// other status flags are known, so one fcntl does what
// syscall.SetNonblock does with two.
func clearNonblock(fd int) error {
	for {
		_, _, e := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_SETFL, 0)
		switch e {
		case 0:
			return nil
		case syscall.EINTR:
			continue
		}
		return fmt.Errorf("clear O_NONBLOCK: %w", e)
	}
}
