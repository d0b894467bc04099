package tools

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
)

// diffContext is how many unchanged lines surround a change, as pi's.
const diffContext = 4

// editDiff is an edit's change as pi 1.6's edit tool details it: diff,
// for display, every changed line numbered with at most diffContext
// unchanged lines around it ("..." for those left out); patch, a unified
// patch (headers "--- name" and "+++ name", diffContext lines of context,
// "\ No newline at end of file" after a last line without one); first,
// the first changed line of the new text (1-based; 0 when equal).
// Common leading and trailing lines are cut before diffing, so a small
// edit of a big file costs little.
type editDiff struct {
	diff, patch string
	first       int
}

// diffTexts compares two LF texts, named name in the patch.
func diffTexts(name, oldText, newText string) editDiff {
	a, b := splitLines(oldText), splitLines(newText)
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	if pre == len(a) && pre == len(b) {
		return editDiff{}
	}
	base := max(pre-diffContext, 0)
	endA, endB := len(a)-max(suf-diffContext, 0), len(b)-max(suf-diffContext, 0)
	ops := difflib.NewMatcher(a[base:endA], b[base:endB]).GetOpCodes()
	for i := range ops {
		ops[i].I1, ops[i].I2, ops[i].J1, ops[i].J2 = ops[i].I1+base, ops[i].I2+base, ops[i].J1+base, ops[i].J2+base
	}
	// The lines cut are unchanged: the first and last runs take them back
	// (an empty run is dropped).
	ops = append([]difflib.OpCode{{Tag: 'e', I2: base, J2: base}}, ops...)
	ops = append(ops, difflib.OpCode{Tag: 'e', I1: endA, I2: len(a), J1: endB, J2: len(b)})
	ops = mergeEqual(ops)
	width := len(strconv.Itoa(max(strings.Count(oldText, "\n"), strings.Count(newText, "\n")) + 1))
	d := displayDiff(ops, a, b, width)
	d.patch = unifiedPatch(name, ops, a, b)
	return d
}

// splitLines splits text into lines that keep their "\n" (the last one
// has none when text does not end with one), as jsdiff compares them.
func splitLines(text string) []string {
	if text == "" {
		return nil
	}
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// mergeEqual joins adjacent runs of unchanged lines.
func mergeEqual(ops []difflib.OpCode) []difflib.OpCode {
	out := ops[:0]
	for _, op := range ops {
		if n := len(out); n > 0 && op.Tag == 'e' && out[n-1].Tag == 'e' {
			out[n-1].I2, out[n-1].J2 = op.I2, op.J2
			continue
		}
		if op.I1 == op.I2 && op.J1 == op.J2 {
			continue
		}
		out = append(out, op)
	}
	return out
}

// diffPart is a run of lines jsdiff reports: unchanged (' '), removed
// ('-') or added ('+').
type diffPart struct {
	kind  byte
	lines []string
}

// diffParts are ops as jsdiff's parts: a replacement is its removed
// lines, then its added ones.
func diffParts(ops []difflib.OpCode, a, b []string) []diffPart {
	var parts []diffPart
	for _, op := range ops {
		switch op.Tag {
		case 'e':
			parts = append(parts, diffPart{' ', a[op.I1:op.I2]})
		case 'd':
			parts = append(parts, diffPart{'-', a[op.I1:op.I2]})
		case 'i':
			parts = append(parts, diffPart{'+', b[op.J1:op.J2]})
		case 'r':
			parts = append(parts, diffPart{'-', a[op.I1:op.I2]}, diffPart{'+', b[op.J1:op.J2]})
		}
	}
	return parts
}

// displayDiff is pi's display diff of ops (generateDiffString): changed
// lines numbered in their own text, unchanged ones in the old text, at
// most diffContext of them beside a change.
func displayDiff(ops []difflib.OpCode, a, b []string, width int) editDiff {
	w := &displayWriter{oldN: 1, newN: 1, width: width}
	parts := diffParts(ops, a, b)
	first := 0
	for i, p := range parts {
		if p.kind == ' ' {
			// Unchanged runs are merged: a change is on either side.
			w.unchanged(p.lines, i > 0, i < len(parts)-1)
			continue
		}
		if first == 0 {
			first = w.newN
		}
		for _, l := range p.lines {
			if p.kind == '+' {
				w.line('+', w.newN, l)
				w.newN++
			} else {
				w.line('-', w.oldN, l)
				w.oldN++
			}
		}
	}
	return editDiff{diff: strings.Join(w.out, "\n"), first: first}
}

// displayWriter writes display diff lines, counting the old and new
// texts' lines.
type displayWriter struct {
	out        []string
	oldN, newN int
	width      int
}

func (w *displayWriter) line(mark byte, n int, l string) {
	w.out = append(w.out, fmt.Sprintf("%c%*d %s", mark, w.width, n, strings.TrimSuffix(l, "\n")))
}

// skip leaves n unchanged lines out, with pi's "...".
func (w *displayWriter) skip(n int) {
	w.out = append(w.out, " "+strings.Repeat(" ", w.width)+" ...")
	w.oldN, w.newN = w.oldN+n, w.newN+n
}

func (w *displayWriter) same(ls []string) {
	for _, l := range ls {
		w.line(' ', w.oldN, l)
		w.oldN, w.newN = w.oldN+1, w.newN+1
	}
}

// unchanged writes a run of unchanged lines: diffContext of them after
// a change and before the next, the rest left out (after or before is
// true: the texts differ).
func (w *displayWriter) unchanged(ls []string, after, before bool) {
	switch {
	case after && before && len(ls) <= 2*diffContext:
		w.same(ls)
	case after && before:
		w.same(ls[:diffContext])
		w.skip(len(ls) - 2*diffContext)
		w.same(ls[len(ls)-diffContext:])
	case after:
		w.same(ls[:min(diffContext, len(ls))])
		if n := len(ls) - diffContext; n > 0 {
			w.skip(n)
		}
	default: // before the first change
		if n := len(ls) - diffContext; n > 0 {
			w.skip(n)
			ls = ls[n:]
		}
		w.same(ls)
	}
}

// unifiedPatch is pi's unified patch of ops (jsdiff's createTwoFilesPatch
// with file headers only).
func unifiedPatch(name string, ops []difflib.OpCode, a, b []string) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", name, name)
	for _, g := range groupOps(ops, diffContext) {
		i1, i2, j1, j2 := g[0].I1, g[len(g)-1].I2, g[0].J1, g[len(g)-1].J2
		fmt.Fprintf(&sb, "@@ -%s +%s @@\n", hunkRange(i1, i2-i1), hunkRange(j1, j2-j1))
		for _, p := range diffParts(g, a, b) {
			for _, l := range p.lines {
				sb.WriteByte(p.kind)
				sb.WriteString(l)
				if !strings.HasSuffix(l, "\n") {
					sb.WriteString("\n\\ No newline at end of file\n")
				}
			}
		}
	}
	return sb.String()
}

// groupOps splits ops into hunks with n unchanged lines around each
// change, as difflib's GetGroupedOpCodes does.
func groupOps(ops []difflib.OpCode, n int) [][]difflib.OpCode {
	ops = append([]difflib.OpCode(nil), ops...)
	if ops[0].Tag == 'e' {
		ops[0].I1, ops[0].J1 = max(ops[0].I1, ops[0].I2-n), max(ops[0].J1, ops[0].J2-n)
	}
	if last := &ops[len(ops)-1]; last.Tag == 'e' {
		last.I2, last.J2 = min(last.I2, last.I1+n), min(last.J2, last.J1+n)
	}
	var groups [][]difflib.OpCode
	var g []difflib.OpCode
	for _, op := range ops {
		if op.Tag == 'e' && op.I2-op.I1 > 2*n {
			g = append(g, difflib.OpCode{Tag: 'e', I1: op.I1, I2: op.I1 + n, J1: op.J1, J2: op.J1 + n})
			groups = append(groups, g)
			g = []difflib.OpCode{{Tag: 'e', I1: op.I2 - n, I2: op.I2, J1: op.J2 - n, J2: op.J2}}
			continue
		}
		g = append(g, op)
	}
	if len(g) > 0 && !(len(g) == 1 && g[0].Tag == 'e') {
		groups = append(groups, g)
	}
	return groups
}

// hunkRange formats one side of a hunk header as jsdiff does (0-based
// start; an empty side names the line before it).
func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}
