package tools

import (
	"regexp"
	"regexp/syntax"
)

// widePattern turns a line pattern into one that finds its matching lines
// in a whole buffer: nothing it matches holds a newline, and '^', '$',
// \A and \z match at line boundaries. On a line as grep reads it, it
// matches where the original does, with two exceptions the caller avoids:
// a line grep cuts (longer than grepMaxLineBytes), where the cut is an end
// for the original, when the pattern looks at what follows a match (ends:
// '$', '\b', '\B'); and a line ending in a carriage return, which grep
// drops, when the pattern has a '$' (dollar). Every candidate is still
// decided by the original pattern on the line alone. wide is nil when the
// pattern cannot be rebuilt.
func widePattern(expr string) (wide *regexp.Regexp, ends, dollar bool) {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil, false, false
	}
	re = widen(re, &ends, &dollar)
	wide, err = regexp.Compile(re.String())
	if err != nil {
		return nil, false, false
	}
	return wide, ends, dollar
}

func widen(re *syntax.Regexp, ends, dollar *bool) *syntax.Regexp {
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
		return &syntax.Regexp{Op: syntax.OpBeginLine}
	case syntax.OpEndText, syntax.OpEndLine:
		*ends, *dollar = true, true
		return &syntax.Regexp{Op: syntax.OpEndLine}
	case syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		*ends = true
	}
	if len(re.Sub) > 0 {
		cp := *re
		cp.Sub = make([]*syntax.Regexp, len(re.Sub))
		for i, s := range re.Sub {
			cp.Sub[i] = widen(s, ends, dollar)
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
