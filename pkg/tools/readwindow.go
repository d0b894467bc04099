package tools

import (
	"bufio"

	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"gopi/pkg/ai"
)

// window is what one streaming pass over a text file found: the lines
// shown and the counts the notices need.
type window struct {
	start, limit  int      // 0-based first line; -1 = no limit
	out           []string // lines shown
	outBytes      int
	selLines      int // lines in the selection (offset/limit) seen
	selBytes      int // bytes in the selection seen
	firstTooLong  int // size of the first selected line when it alone exceeds the byte limit
	stopped       bool
	heldEmpty     bool // an empty line past the line limit, shown only if it ends the selection
	lastEmpty     bool // the last selected line seen is empty
	totalLines    int  // lines in the file (pi's split("\n") count)
	capped        bool // counting stopped at maxScanBytes
	selOpenAtStop bool // the scan was capped inside the selection
}

// scanWindow streams r once: it skips to line start, keeps the lines that
// fit the limits and then only counts, up to maxScanBytes.
func scanWindow(ctx context.Context, r *bufio.Reader, start, limit int) (*window, error) {
	w := &window{start: start, limit: limit}
	consumed := 0
	for idx := 0; ; idx++ {
		if idx%4096 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		inSel := idx >= start && (limit < 0 || idx < start+limit)
		keep := 0
		if inSel && !w.stopped {
			keep = DefaultMaxBytes + 1
		}
		line, size, more, err := readLine(r, keep, maxScanBytes-consumed)
		if errors.Is(err, errScanBudget) {
			w.capped = true
			w.selOpenAtStop = inSel || limit < 0 || idx < start+limit
			return w, nil
		}
		if err != nil {
			return nil, err
		}
		consumed += size + 1
		w.totalLines++
		if inSel {
			w.take(line, size)
		}
		if !more {
			return w, nil
		}
		if consumed > maxScanBytes {
			w.capped = true
			w.selOpenAtStop = limit < 0 || idx+1 < start+limit
			return w, nil
		}
	}
}

// take adds one selected line if it still fits.
func (w *window) take(line []byte, size int) {
	w.selLines++
	w.selBytes += size
	if w.selLines > 1 {
		w.selBytes++
	}
	w.lastEmpty = size == 0
	if w.heldEmpty {
		w.stopped = true
	}
	if w.stopped {
		return
	}
	if len(w.out) == 0 && size > DefaultMaxBytes {
		w.firstTooLong = size
		w.stopped = true
		return
	}
	add := size
	if len(w.out) > 0 {
		add++
	}
	if w.outBytes+add > DefaultMaxBytes {
		w.stopped = true
		return
	}
	if len(w.out) >= DefaultMaxLines {
		// pi 1.6 counts the selection's lines without a last empty one:
		// the line end before it ends the selection.
		w.heldEmpty = size == 0
		w.stopped = !w.heldEmpty
		return
	}
	w.out = append(w.out, string(line))
	w.outBytes += add
}

// errScanBudget stops a line longer than the bytes left to scan.
var errScanBudget = errors.New("scan budget exhausted")

// readLine reads one line without its '\n', keeping at most keep bytes of
// it; size is the whole line's length and more says a '\n' ended it. A
// line longer than budget ends in errScanBudget.
func readLine(r *bufio.Reader, keep, budget int) (line []byte, size int, more bool, err error) {
	for {
		if size > budget {
			return line, size, false, errScanBudget
		}
		chunk, err := r.ReadSlice('\n')
		n := len(chunk)
		if err == nil {
			n-- // the newline
		}
		if room := keep - len(line); room > 0 {
			line = append(line, chunk[:min(n, room)]...)
		}
		size += n
		switch {
		case err == nil:
			return line, size, true, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			return line, size, false, nil
		default:
			return nil, 0, false, err
		}
	}
}

// result renders the window with pi's notices.
func (w *window) result(path string, offset *float64) Result {
	if w.start >= w.totalLines && !w.capped {
		return ErrorResult(fmt.Sprintf("Offset %d is beyond end of file (%d lines total)", intArg(offset, 0), w.totalLines))
	}
	if w.start >= w.totalLines {
		return ErrorResult(fmt.Sprintf("Offset %d is beyond the first %d lines (%s) read tool scans. Use bash (e.g. tail or sed) to reach it.",
			intArg(offset, 0), w.totalLines, formatSize(maxScanBytes)))
	}
	first := w.start + 1
	total := fmt.Sprint(w.totalLines)
	if w.capped {
		total = "more than " + total
	}
	tr := w.truncation()
	if w.firstTooLong > 0 {
		text := fmt.Sprintf("[Line %d is %s, exceeds %s limit. Use bash: sed -n '%dp' %s | head -c %d]",
			first, formatSize(w.firstTooLong), formatSize(DefaultMaxBytes), first, path, DefaultMaxBytes)
		return Result{Content: textContent(text), Details: ReadDetails{Truncation: tr}}
	}
	text := validUTF8(strings.Join(w.out, "\n"))
	if w.heldEmpty && !tr.Truncated {
		text += "\n"
	}
	if tr.Truncated {
		tr.Content = text // the lines shown, as pi's details carry them
		last := w.start + len(w.out)
		limitNote := ""
		if tr.TruncatedBy == "bytes" {
			limitNote = fmt.Sprintf(" (%s limit)", formatSize(DefaultMaxBytes))
		}
		text += fmt.Sprintf("\n\n[Showing lines %d-%d of %s%s. Use offset=%d to continue.]", first, last, total, limitNote, last+1)
		return Result{Content: textContent(text), Details: ReadDetails{Truncation: tr}}
	}
	if next := w.start + w.selLines; w.limit >= 0 && (next < w.totalLines || w.capped) {
		if w.capped {
			text += fmt.Sprintf("\n\n[More lines in file. Use offset=%d to continue.]", next+1)
		} else {
			text += fmt.Sprintf("\n\n[%d more lines in file. Use offset=%d to continue.]", w.totalLines-next, next+1)
		}
	}
	return TextResult(text)
}

// truncation reports the window in pi's TruncationResult shape.
func (w *window) truncation() *Truncation {
	t := &Truncation{
		Truncated:   w.stopped || w.selOpenAtStop, // take stops at the first selected line it leaves out
		TotalLines:  w.countedLines(),
		TotalBytes:  w.selBytes,
		OutputLines: len(w.out),
		OutputBytes: w.outBytes,
		MaxLines:    DefaultMaxLines,
		MaxBytes:    DefaultMaxBytes,
	}
	t.FirstLineExceedsLimit = w.firstTooLong > 0
	if t.Truncated {
		t.TruncatedBy = "bytes"
		if len(w.out) >= DefaultMaxLines {
			t.TruncatedBy = "lines"
		}
	}
	return t
}

// countedLines is the selection's line count as pi 1.6 gives it: a last
// empty line is not counted, as the line end before it ends the text.
func (w *window) countedLines() int {
	if w.lastEmpty {
		return w.selLines - 1
	}
	return w.selLines
}

func textContent(s string) []ai.Content { return []ai.Content{ai.TextContent(s)} }

// validUTF8 replaces invalid bytes with U+FFFD.
func validUTF8(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }
