package sandbox

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
)

// Rules are permission patterns, in Claude Code's style: a tool's name
// alone (`Write`) or with a glob of its argument (`Bash(git *)`,
// `Read(/etc/**)`, `Edit(src/**)`). The argument of bash is the command,
// of the file tools the path (a relative pattern is taken from the
// working directory; `*` stays within one path segment, `**` crosses
// them); for bash `*` matches any text, and a pattern ending in `:*`
// matches any command that starts with what comes before it. Names match
// without regard to case.
//
// Deny wins: a call matching a deny rule is refused. A tool that some
// allow rule names may be called only as an allow rule says; a bash
// command then has each of its parts (split at ;, &&, ||, | and new
// lines) matched, and a command substitution is refused. Tools no allow
// rule names are not restricted by allow rules.
type Rules struct {
	allow, deny []rule
	ask         []rule // calls to ask about (AddAsk)
}

type rule struct {
	text string
	tool string         // lower case; "*" for any
	arg  *regexp.Regexp // nil: any argument
}

// ParseRules reads allow and deny patterns; relative path globs are
// taken from cwd. A malformed pattern is an error naming it.
func ParseRules(allow, deny []string, cwd string) (*Rules, error) {
	r := &Rules{}
	for _, list := range []struct {
		in  []string
		out *[]rule
	}{{allow, &r.allow}, {deny, &r.deny}} {
		for _, text := range list.in {
			ru, err := parseRule(strings.TrimSpace(text), cwd)
			if err != nil {
				return nil, err
			}
			*list.out = append(*list.out, ru)
		}
	}
	return r, nil
}

// Empty reports whether there are no rules.
func (r *Rules) Empty() bool { return r == nil || len(r.allow)+len(r.deny)+len(r.ask) == 0 }

// AddAsk adds "ask" patterns (settings' permissions.ask): a call that
// matches one, and that no deny rule refuses, is a question to the one
// who runs gopi (Guard.SetAsk); where nobody is asked, it is refused.
func (r *Rules) AddAsk(patterns []string, cwd string) error {
	for _, text := range patterns {
		ru, err := parseRule(strings.TrimSpace(text), cwd)
		if err != nil {
			return err
		}
		r.ask = append(r.ask, ru)
	}
	return nil
}

// Asks reports the ask rule a call matches (a bash command when any of
// its parts does), or "" and false.
func (r *Rules) Asks(tool, arg, real string) (string, bool) {
	if r == nil {
		return "", false
	}
	tool = strings.ToLower(tool)
	parts := []string{arg, real}
	if tool == "bash" {
		parts = append([]string{arg}, commandParts(arg)...)
	}
	for _, a := range r.ask {
		if a.matches(tool, parts...) {
			return "asks by rule " + a.text, true
		}
	}
	return "", false
}

func parseRule(text, cwd string) (rule, error) {
	name, arg, hasArg := strings.Cut(text, "(")
	name = strings.ToLower(strings.TrimSpace(name))
	if name == "" || strings.ContainsAny(name, " )") {
		return rule{}, fmt.Errorf("permission rule %q: give a tool name, optionally with an argument pattern, e.g. Bash(git *) or Read(/etc/**)", text)
	}
	ru := rule{text: text, tool: name}
	if !hasArg {
		return ru, nil
	}
	if !strings.HasSuffix(arg, ")") {
		return rule{}, fmt.Errorf("permission rule %q: the argument pattern must end with ')'", text)
	}
	arg = strings.TrimSuffix(arg, ")")
	if arg == "" || arg == "*" || arg == "**" {
		return ru, nil
	}
	var expr string
	if name == "bash" {
		expr = commandGlob(arg)
	} else {
		if !filepath.IsAbs(arg) && !strings.HasPrefix(arg, "**") {
			arg = filepath.Join(cwd, arg)
		}
		expr = pathGlob(arg)
	}
	re, err := regexp.Compile("^(?:" + expr + ")$")
	if err != nil {
		return rule{}, fmt.Errorf("permission rule %q: %v", text, err)
	}
	ru.arg = re
	return ru, nil
}

// commandGlob: * is any text; a trailing :* is a prefix match.
func commandGlob(g string) string {
	if p, ok := strings.CutSuffix(g, ":*"); ok {
		return regexp.QuoteMeta(p) + "(?:\\s.*)?"
	}
	var b strings.Builder
	for _, c := range g {
		switch c {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	return b.String()
}

// pathGlob: ** is any path, * any text within a segment.
func pathGlob(g string) string {
	var b strings.Builder
	for i := 0; i < len(g); i++ {
		switch {
		case strings.HasPrefix(g[i:], "**/"):
			b.WriteString("(?:.*/)?")
			i += 2
		case strings.HasPrefix(g[i:], "/**") && i+3 == len(g):
			b.WriteString("(?:/.*)?")
			i += 2
		case strings.HasPrefix(g[i:], "**"):
			b.WriteString(".*")
			i++
		case g[i] == '*':
			b.WriteString("[^/]*")
		case g[i] == '?':
			b.WriteString("[^/]")
		default:
			b.WriteString(regexp.QuoteMeta(g[i : i+1]))
		}
	}
	return b.String()
}

func (ru rule) matches(tool string, args ...string) bool {
	if ru.tool != "*" && ru.tool != tool {
		return false
	}
	if ru.arg == nil {
		return true
	}
	for _, a := range args {
		if a != "" && ru.arg.MatchString(a) {
			return true
		}
	}
	return false
}

// Check decides one call: tool, its argument and (for a path) the path
// with its links resolved. It returns the refusing rule and true, or
// "" and false.
func (r *Rules) Check(tool, arg, real string) (string, bool) {
	if r.Empty() {
		return "", false
	}
	tool = strings.ToLower(tool)
	parts := []string{arg}
	if tool == "bash" {
		parts = append(parts, commandParts(arg)...)
	}
	for _, d := range r.deny {
		for _, p := range parts {
			if d.matches(tool, p, real) {
				return "denied by rule " + d.text, true
			}
		}
	}
	named := false
	for _, a := range r.allow {
		if a.tool == tool || a.tool == "*" {
			named = true
			break
		}
	}
	if !named {
		return "", false
	}
	if tool != "bash" {
		for _, a := range r.allow {
			if a.matches(tool, arg, real) {
				return "", false
			}
		}
		return "not allowed: no allow rule for " + tool + " matches", true
	}
	for _, a := range r.allow {
		if a.matches(tool, arg) && a.arg == nil {
			return "", false // Bash alone allows every command
		}
	}
	if strings.Contains(arg, "$(") || strings.Contains(arg, "`") || strings.Contains(arg, "<(") || strings.Contains(arg, ">(") {
		return "not allowed: a command substitution under bash allow rules", true
	}
	for _, p := range commandParts(arg) {
		ok := false
		for _, a := range r.allow {
			if a.matches(tool, p) {
				ok = true
				break
			}
		}
		if !ok {
			return fmt.Sprintf("not allowed: no allow rule for bash matches %q", p), true
		}
	}
	return "", false
}

// commandParts splits a command at ;, &, &&, ||, | and new lines outside
// quotes, each part trimmed.
func commandParts(cmd string) []string {
	var parts []string
	var cur strings.Builder
	var quote rune
	flush := func() {
		if s := strings.TrimSpace(cur.String()); s != "" {
			parts = append(parts, s)
		}
		cur.Reset()
	}
	rs := []rune(cmd)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch {
		case quote != 0:
			if c == '\\' && quote == '"' && i+1 < len(rs) {
				cur.WriteRune(c)
				i++
				c = rs[i]
			} else if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '\\' && i+1 < len(rs):
			cur.WriteRune(c)
			i++
			c = rs[i]
		case c == '&' && ((i > 0 && (rs[i-1] == '>' || rs[i-1] == '<')) || (i+1 < len(rs) && rs[i+1] == '>')):
			// a redirection (2>&1, &>file), not a separator
		case c == ';' || c == '&' || c == '|' || c == '\n':
			flush()
			continue
		}
		cur.WriteRune(c)
	}
	flush()
	return parts
}
