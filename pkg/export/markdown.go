package export

import (
	"html"
	"html/template"
	"net/url"
	"regexp"
	"strings"
	"sync"
)

// markdown renders the small, safe subset of Markdown that answers use,
// code fences aside (textBlocks splits those off first): paragraphs (a
// line break kept as one), bullet and numbered lists, headings as bold
// paragraphs, inline code, strong and emphasis, and links. Every piece
// of the text is escaped; the only markup is the fixed tags written here,
// with no attribute but a link's href, and that only for an http, https
// or mailto URL or an anchor in the page (any other link shows its text
// and its target as text).
func markdown(text string) template.HTML {
	var b strings.Builder
	var para []string
	list := "" // "ul", "ol" or "" when no list is open
	closeList := func() {
		if list != "" {
			b.WriteString("</li></" + list + ">")
			list = ""
		}
	}
	flush := func() {
		if len(para) == 0 {
			return
		}
		closeList()
		b.WriteString("<p>")
		for i, l := range para {
			if i > 0 {
				b.WriteString("<br>")
			}
			b.WriteString(inline(l))
		}
		b.WriteString("</p>")
		para = nil
	}
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" {
			flush()
			closeList()
			continue
		}
		if kind, item, ok := listItem(line); ok {
			flush()
			switch {
			case list == kind:
				b.WriteString("</li><li>")
			default:
				closeList()
				b.WriteString("<" + kind + "><li>")
				list = kind
			}
			b.WriteString(inline(item))
			continue
		}
		if list != "" && strings.HasPrefix(line, " ") { // a list item's next line
			b.WriteString("<br>" + inline(trimmed))
			continue
		}
		if h := heading().FindStringSubmatch(line); h != nil {
			flush()
			closeList()
			b.WriteString(`<p class="md-h"><strong>` + inline(h[1]) + "</strong></p>")
			continue
		}
		closeList()
		para = append(para, trimmed)
	}
	flush()
	closeList()
	return template.HTML(b.String()) // #nosec: built of escaped text and fixed tags only
}

// The patterns are compiled at the first export, not at every start.
var (
	heading  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$`) })
	bullet   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^ {0,3}[-*+]\s+(.*)$`) })
	numbered = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^ {0,3}\d{1,9}[.)]\s+(.*)$`) })
)

// listItem reports whether line starts a list item, of which kind.
func listItem(line string) (kind, item string, ok bool) {
	if m := bullet().FindStringSubmatch(line); m != nil {
		return "ul", m[1], true
	}
	if m := numbered().FindStringSubmatch(line); m != nil {
		return "ol", m[1], true
	}
	return "", "", false
}

// inline renders one line's code spans, links, strong and emphasis; the
// rest is escaped text. An unmatched marker is text.
func inline(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == '`':
			n := len(s[i:]) - len(strings.TrimLeft(s[i:], "`"))
			fence := s[i : i+n]
			if end := strings.Index(s[i+n:], fence); end >= 0 {
				b.WriteString("<code>" + html.EscapeString(strings.TrimSpace(s[i+n:i+n+end])) + "</code>")
				i += n + end + n
				continue
			}
			b.WriteString(fence)
			i += n
			continue
		case c == '[':
			if text, target, n, ok := link(s[i:]); ok {
				if safeHref(target) {
					b.WriteString(`<a href="` + html.EscapeString(target) + `">` + inline(text) + "</a>")
				} else {
					b.WriteString(inline(text) + " (" + html.EscapeString(target) + ")")
				}
				i += n
				continue
			}
		case c == '*' || c == '_':
			if c == '_' && i > 0 && isWord(s[i-1]) {
				break // snake_case is not emphasis
			}
			marker := string(c)
			tag := "em"
			if strings.HasPrefix(s[i:], marker+marker) {
				marker, tag = marker+marker, "strong"
			}
			rest := s[i+len(marker):]
			if end := strings.Index(rest, marker); end > 0 && rest[0] != ' ' && rest[end-1] != ' ' &&
				(c != '_' || i+len(marker)+end+len(marker) >= len(s) || !isWord(s[i+len(marker)+end+len(marker)])) {
				b.WriteString("<" + tag + ">" + inline(rest[:end]) + "</" + tag + ">")
				i += len(marker) + end + len(marker)
				continue
			}
		}
		b.WriteString(html.EscapeString(s[i : i+1]))
		i++
	}
	return b.String()
}

// link parses [text](target) at the start of s.
func link(s string) (text, target string, n int, ok bool) {
	close := strings.Index(s, "](")
	if close < 0 {
		return "", "", 0, false
	}
	end := strings.IndexByte(s[close+2:], ')')
	if end < 0 {
		return "", "", 0, false
	}
	text, target = s[1:close], strings.TrimSpace(s[close+2:close+2+end])
	if text == "" || target == "" || strings.ContainsAny(target, " \t") || strings.Contains(text, "[") {
		return "", "", 0, false
	}
	return text, target, close + 2 + end + 1, true
}

// safeHref admits http, https and mailto URLs and anchors in the page.
func safeHref(target string) bool {
	if strings.HasPrefix(target, "#") {
		return true
	}
	u, err := url.Parse(target)
	if err != nil {
		return false
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
		return u.Host != ""
	case "mailto":
		return u.Opaque != ""
	}
	return false
}

func isWord(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
