package tools

import (
	"bytes"
	"regexp/syntax"
	"slices"
	"unicode"
	"unicode/utf8"
)

// lit is a literal a match must contain. With fold set, s is lower case
// and ASCII letters match in either case; that accepts a little more than
// the pattern (a prefilter may), never less.
type lit struct {
	s    string
	fold bool
}

// maxLitSet bounds the alternatives a literal set keeps: more of them cost
// more to look for than they save.
const maxLitSet = 16

// litInfo is what the analysis knows of one node of a pattern: exact is
// every string it can match when that is a short list (nil when not
// known), req a set of literals of which every match contains one (nil
// when none is known).
type litInfo struct {
	exact []lit
	req   []lit
}

// requiredLits returns literals of which every match of re contains at
// least one, or nil. Grep looks for them first and runs the regexp only on
// the lines that hold one.
func requiredLits(re *syntax.Regexp) []lit {
	info := analyse(re.Simplify())
	if info.req == nil || score(info.req) == 0 {
		return nil
	}
	return info.req
}

func analyse(re *syntax.Regexp) litInfo {
	switch re.Op {
	case syntax.OpLiteral:
		return literalInfo(re.Rune, re.Flags&syntax.FoldCase != 0)
	case syntax.OpCharClass:
		return classInfo(re.Rune)
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return litInfo{exact: []lit{{}}}
	case syntax.OpCapture:
		return analyse(re.Sub[0])
	case syntax.OpPlus:
		return litInfo{req: analyse(re.Sub[0]).req}
	case syntax.OpRepeat:
		if re.Min >= 1 {
			sub := analyse(re.Sub[0])
			if re.Min == 1 && re.Max == 1 {
				return sub
			}
			return litInfo{req: sub.req}
		}
	case syntax.OpConcat:
		return concatInfo(re.Sub)
	case syntax.OpAlternate:
		return alternateInfo(re.Sub)
	}
	return litInfo{} // any character, a star, a question mark: nothing required
}

// literalInfo splits a case-folded literal where a letter folds to more
// than its ASCII pair ('k' also matches the Kelvin sign, 's' the long s):
// the pieces between are still required.
func literalInfo(runes []rune, fold bool) litInfo {
	var pieces []lit
	var cur []byte
	curFold := false
	for _, r := range runes {
		switch {
		case !fold || !hasFold(r):
			cur = utf8.AppendRune(cur, r)
		case r < utf8.RuneSelf && simpleASCIIFold(r):
			cur = append(cur, byte(unicode.ToLower(r)))
			curFold = true
		default:
			pieces = append(pieces, lit{string(cur), curFold})
			cur, curFold = nil, false
		}
	}
	pieces = append(pieces, lit{string(cur), curFold})
	if len(pieces) == 1 {
		return litInfo{exact: pieces, req: pieces}
	}
	var best []lit
	for _, p := range pieces {
		if cand := []lit{p}; score(cand) > score(best) {
			best = cand
		}
	}
	return litInfo{req: best}
}

func hasFold(r rune) bool { return unicode.SimpleFold(r) != r }

// simpleASCIIFold says an ASCII letter folds only to its other case.
func simpleASCIIFold(r rune) bool {
	o := unicode.SimpleFold(r)
	return unicode.SimpleFold(o) == r && o < utf8.RuneSelf
}

// classInfo turns a small class into its strings; a letter in both cases
// ([Cc]) becomes one folded literal.
func classInfo(ranges []rune) litInfo {
	n := 0
	for i := 0; i < len(ranges); i += 2 {
		n += int(ranges[i+1]-ranges[i]) + 1
		if n > 8 {
			return litInfo{}
		}
	}
	var out []lit
	for i := 0; i < len(ranges); i += 2 {
		for r := ranges[i]; r <= ranges[i+1]; r++ {
			out = append(out, lit{s: string(r)})
		}
	}
	if len(out) == 2 && len(out[0].s) == 1 && len(out[1].s) == 1 && out[0].s[0]|0x20 == out[1].s[0] &&
		out[1].s[0] >= 'a' && out[1].s[0] <= 'z' {
		out = []lit{{s: out[1].s, fold: true}}
	}
	return litInfo{exact: out, req: out}
}

// concatInfo joins runs of children with exact strings into longer
// literals; each run, and each other child's requirement, is a candidate,
// and the best one is required.
func concatInfo(subs []*syntax.Regexp) litInfo {
	cur := []lit{{}}
	exact := true
	var cands [][]lit
	for _, sub := range subs {
		info := analyse(sub)
		if info.exact != nil && cur != nil && len(cur)*len(info.exact) <= maxLitSet {
			cur = cross(cur, info.exact)
			continue
		}
		exact = false
		if cur != nil {
			cands = append(cands, cur)
		}
		if info.req != nil {
			cands = append(cands, info.req)
		}
		cur = info.exact
	}
	if cur != nil {
		cands = append(cands, cur)
	}
	var out litInfo
	if exact {
		out.exact = cur
	}
	for _, c := range cands {
		if score(c) > score(out.req) {
			out.req = c
		}
	}
	return out
}

func alternateInfo(subs []*syntax.Regexp) litInfo {
	var exact, req []lit
	exactOK, reqOK := true, true
	for _, sub := range subs {
		info := analyse(sub)
		exactOK = exactOK && info.exact != nil && len(exact)+len(info.exact) <= maxLitSet
		reqOK = reqOK && info.req != nil && len(req)+len(info.req) <= maxLitSet
		if exactOK {
			exact = append(exact, info.exact...)
		}
		if reqOK {
			req = append(req, info.req...)
		}
	}
	var out litInfo
	if exactOK {
		out.exact = dedupe(exact)
	}
	if reqOK {
		out.req = dedupe(req)
	}
	return out
}

func cross(a, b []lit) []lit {
	out := make([]lit, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			fold := x.fold || y.fold
			out = append(out, lit{s: foldIf(x.s, fold) + foldIf(y.s, fold), fold: fold})
		}
	}
	return dedupe(out)
}

// foldIf lowers the ASCII letters of s when it joins a folded literal.
func foldIf(s string, fold bool) string {
	if !fold {
		return s
	}
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c | 0x20
		}
	}
	return string(b)
}

func dedupe(ls []lit) []lit {
	slices.SortFunc(ls, func(a, b lit) int {
		if c := bytes.Compare([]byte(a.s), []byte(b.s)); c != 0 {
			return c
		}
		if a.fold == b.fold {
			return 0
		}
		if a.fold {
			return 1
		}
		return -1
	})
	return slices.Compact(ls)
}

// score rates a literal set as a prefilter: its shortest member's length,
// 0 when it holds the empty string (every text has it).
func score(ls []lit) int {
	if len(ls) == 0 {
		return 0
	}
	m := len(ls[0].s)
	for _, l := range ls[1:] {
		m = min(m, len(l.s))
	}
	return m
}

// syntaxParse parses a pattern as regexp.Compile does.
func syntaxParse(expr string) (*syntax.Regexp, error) { return syntax.Parse(expr, syntax.Perl) }
