package tools

import (
	"fmt"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
)

// diffContext is how many unchanged lines surround a change, as pi's.
const diffContext = 4

// unifiedDiff returns a unified diff of two LF texts and the first changed
// line of the new text (1-based; 0 when they are equal). Common leading and
// trailing lines are cut before diffing, so a small edit of a big file
// costs little.
func unifiedDiff(name, oldText, newText string) (string, int) {
	a, b := strings.Split(oldText, "\n"), strings.Split(newText, "\n")
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	base := max(pre-diffContext, 0)
	a = a[base : len(a)-max(suf-diffContext, 0)]
	b = b[base : len(b)-max(suf-diffContext, 0)]
	groups := difflib.NewMatcher(a, b).GetGroupedOpCodes(diffContext)
	if len(groups) == 0 {
		return "", 0
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- a/%s\n+++ b/%s\n", name, name)
	first := 0
	for _, g := range groups {
		i1, i2, j1, j2 := g[0].I1, g[len(g)-1].I2, g[0].J1, g[len(g)-1].J2
		fmt.Fprintf(&sb, "@@ -%s +%s @@\n", hunkRange(base+i1, i2-i1), hunkRange(base+j1, j2-j1))
		for _, op := range g {
			if op.Tag != 'e' && first == 0 {
				first = base + op.J1 + 1
			}
			writeOp(&sb, op, a, b)
		}
	}
	return strings.TrimSuffix(sb.String(), "\n"), first
}

func writeOp(sb *strings.Builder, op difflib.OpCode, a, b []string) {
	if op.Tag == 'e' {
		for _, l := range a[op.I1:op.I2] {
			sb.WriteString(" " + l + "\n")
		}
		return
	}
	if op.Tag == 'r' || op.Tag == 'd' {
		for _, l := range a[op.I1:op.I2] {
			sb.WriteString("-" + l + "\n")
		}
	}
	if op.Tag == 'r' || op.Tag == 'i' {
		for _, l := range b[op.J1:op.J2] {
			sb.WriteString("+" + l + "\n")
		}
	}
}

// hunkRange formats one side of a hunk header (0-based start).
func hunkRange(start, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", start)
	case 1:
		return fmt.Sprint(start + 1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}
