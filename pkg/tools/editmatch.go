package tools

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// mapped is a normalised text that remembers, for each of its bytes, the
// span of the source text that produced it, so that a match found in the
// normalised text maps back to exact source bytes. Nil spans mean the text
// is the source itself.
type mapped struct {
	text       string
	start, end []int32
}

// span maps the text range [a, b), b > a, to the source range it came from.
func (m *mapped) span(a, b int) (int, int) {
	if m.start == nil {
		return a, b
	}
	return int(m.start[a]), int(m.end[b-1])
}

// builder accumulates a mapped text.
type builder struct {
	buf        []byte
	start, end []int32
}

func (b *builder) add(s []byte, from, to int) {
	for range s {
		b.start = append(b.start, int32(from))
		b.end = append(b.end, int32(to))
	}
	b.buf = append(b.buf, s...)
}

func (b *builder) done() *mapped {
	return &mapped{text: string(b.buf), start: b.start, end: b.end}
}

// toLF turns CRLF and lone CR into LF, as pi does before matching.
func toLF(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

// mapLF is toLF that remembers where each byte came from.
func mapLF(src string) *mapped {
	if !strings.Contains(src, "\r") {
		return &mapped{text: src}
	}
	b := &builder{}
	for i := 0; i < len(src); i++ {
		switch {
		case src[i] == '\r' && i+1 < len(src) && src[i+1] == '\n':
			b.add([]byte{'\n'}, i, i+2)
			i++
		case src[i] == '\r':
			b.add([]byte{'\n'}, i, i+1)
		default:
			b.add([]byte{src[i]}, i, i+1)
		}
	}
	return b.done()
}

// fuzzyRune folds the characters pi treats as equal when matching
// tolerantly: smart quotes and unicode dashes. The special spaces pi
// folds too (U+00A0, U+2002–U+200A, U+202F, U+205F, U+3000) are already
// plain spaces after NFKC, which runs first.
func fuzzyRune(r rune) rune {
	switch {
	case r >= '\u2018' && r <= '\u201B':
		return '\''
	case r >= '\u201C' && r <= '\u201F':
		return '"'
	case r >= '\u2010' && r <= '\u2015', r == '\u2212':
		return '-'
	}
	return r
}

// mapFuzzy normalises src as pi's normalizeForFuzzyMatch (NFKC, trailing
// whitespace of each line dropped, quotes, dashes and spaces folded) and
// maps every byte back to src. NFKC works on whole segments, so a match
// that starts or ends inside one maps to the whole segment.
func mapFuzzy(src string) *mapped {
	b := &builder{}
	var it norm.Iter
	it.InitString(norm.NFKC, src)
	var seg []byte
	for !it.Done() {
		from := it.Pos()
		out := it.Next()
		to := it.Pos()
		seg = seg[:0]
		for len(out) > 0 {
			r, n := utf8.DecodeRune(out)
			if r == utf8.RuneError && n == 1 {
				seg = append(seg, out[0])
			} else {
				seg = utf8.AppendRune(seg, fuzzyRune(r))
			}
			out = out[n:]
		}
		b.add(seg, from, to)
	}
	return trimLineEnds(b.done())
}

func isTrailingSpace(r rune) bool { return r != '\n' && (unicode.IsSpace(r) || r == '\uFEFF') }

// trimLineEnds drops the whitespace that ends each line, keeping the map.
func trimLineEnds(m *mapped) *mapped {
	b := &builder{}
	text := m.text
	for pos := 0; pos <= len(text); {
		nl := strings.IndexByte(text[pos:], '\n')
		lineEnd := len(text)
		if nl >= 0 {
			lineEnd = pos + nl
		}
		kept := pos + len(strings.TrimRightFunc(text[pos:lineEnd], isTrailingSpace))
		b.buf = append(b.buf, text[pos:kept]...)
		b.start = append(b.start, m.start[pos:kept]...)
		b.end = append(b.end, m.end[pos:kept]...)
		if nl < 0 {
			break
		}
		b.buf = append(b.buf, '\n')
		b.start = append(b.start, m.start[lineEnd])
		b.end = append(b.end, m.end[lineEnd])
		pos = lineEnd + 1
	}
	return b.done()
}

// match is where one oldText was found in the source.
type match struct {
	from, to int // source byte span
	count    int // occurrences found (1 when from/to are valid)
}

// sourceText is a file's text prepared for matching, the tolerant form
// built only when an exact match fails.
type sourceText struct {
	lf    *mapped
	fuzzy *mapped
}

func newSourceText(src string) *sourceText { return &sourceText{lf: mapLF(src)} }

// find locates oldText: exactly (after LF normalisation) first, then
// tolerantly. count reports the occurrences of the form that matched.
func (s *sourceText) find(oldText string) match {
	old := toLF(oldText)
	if n := strings.Count(s.lf.text, old); n > 0 {
		if n > 1 {
			return match{count: n}
		}
		i := strings.Index(s.lf.text, old)
		from, to := s.lf.span(i, i+len(old))
		return match{from: from, to: to, count: 1}
	}
	if s.fuzzy == nil {
		s.fuzzy = mapFuzzy(s.lf.text)
	}
	fold := mapFuzzy(old).text
	if fold == "" {
		return match{}
	}
	n := strings.Count(s.fuzzy.text, fold)
	if n != 1 {
		return match{count: n}
	}
	i := strings.Index(s.fuzzy.text, fold)
	a, b := s.fuzzy.span(i, i+len(fold))
	from, to := s.lf.span(a, b)
	return match{from: from, to: to, count: 1}
}
