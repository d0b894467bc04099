package tools

import (
	"regexp"
	"regexp/syntax"
)

// widePattern turns a line pattern into one that finds candidate lines in
// a whole buffer: it matches, somewhere in a line, wherever the original
// matches that line as grep sees it (without its newline and a trailing
// carriage return). Nothing it matches can hold a newline; '^' and '$'
// match at line boundaries, '$' also before a "\r\n". Every candidate is
// still decided by the original pattern on the line alone, so the wide
// one may accept more, never less. ends says the pattern tests what
// follows a match ('$', '\b'), which differs where grep cuts a line longer
// than it reads; nil when the pattern cannot be rebuilt.
func widePattern(expr string) (wide *regexp.Regexp, ends bool) {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil, false
	}
	re = widen(re, &ends)
	wide, err = regexp.Compile(re.String())
	if err != nil {
		return nil, false
	}
	return wide, ends
}

func widen(re *syntax.Regexp, ends *bool) *syntax.Regexp {
	switch re.Op {
	case syntax.OpAnyChar:
		return &syntax.Regexp{Op: syntax.OpAnyCharNotNL, Flags: re.Flags}
	case syntax.OpCharClass:
		return &syntax.Regexp{Op: syntax.OpCharClass, Flags: re.Flags, Rune: withoutNewline(re.Rune)}
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if r == '\n' {
				return &syntax.Regexp{Op: syntax.OpNoMatch} // no line holds one
			}
		}
	case syntax.OpBeginText, syntax.OpBeginLine:
		return &syntax.Regexp{Op: syntax.OpBeginLine, Flags: re.Flags | syntax.OneLine}
	case syntax.OpEndText, syntax.OpEndLine:
		*ends = true
		return &syntax.Regexp{Op: syntax.OpConcat, Sub: []*syntax.Regexp{
			{Op: syntax.OpQuest, Sub: []*syntax.Regexp{{Op: syntax.OpLiteral, Rune: []rune{'\r'}}}},
			{Op: syntax.OpEndLine},
		}}
	case syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		*ends = true
	}
	if len(re.Sub) > 0 {
		cp := *re
		cp.Sub = make([]*syntax.Regexp, len(re.Sub))
		for i, s := range re.Sub {
			cp.Sub[i] = widen(s, ends)
		}
		return &cp
	}
	return re
}

// withoutNewline removes '\n' from a class's sorted ranges.
func withoutNewline(ranges []rune) []rune {
	out := make([]rune, 0, len(ranges)+2)
	for i := 0; i < len(ranges); i += 2 {
		lo, hi := ranges[i], ranges[i+1]
		if lo <= '\n' && '\n' <= hi {
			if lo < '\n' {
				out = append(out, lo, '\n'-1)
			}
			if hi > '\n' {
				out = append(out, '\n'+1, hi)
			}
			continue
		}
		out = append(out, lo, hi)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
