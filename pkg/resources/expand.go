package resources

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"unicode"
)

// skillPrefix starts a prompt that inlines a skill.
const skillPrefix = "/skill:"

// Expand expands a prompt that starts with `/skill:name` (the skill's body
// inlined, its folder noted, then the rest of the prompt) or `/name` (the
// template name, its arguments substituted). Any other prompt, and one
// naming no known skill or template, is returned exactly as typed. The
// error is for a skill file that can no longer be read.
//
// A template's arguments are read from the first line only; the lines
// after it follow the expansion verbatim after a blank line, so that text
// piped after `gopi run "/review"` arrives unchanged (pi parses the whole
// text as arguments, collapsing its white space).
func (c *Catalog) Expand(prompt string) (string, error) {
	return c.ExpandWithin(prompt, 0)
}

// ExpandWithin is Expand refusing an expansion larger than limit bytes
// (0: no limit) with an error that errors.Is ErrRefused. A template
// repeating $@ over long arguments would otherwise grow the prompt
// without bound before anyone could measure it; the substitution stops
// as soon as the limit is passed.
func (c *Catalog) ExpandWithin(prompt string, limit int) (string, error) {
	out, err := c.expand(prompt, limit)
	if err == nil && limit > 0 && len(out) > limit {
		err = &refusal{fmt.Sprintf("the prompt expands to more than %d bytes", limit)}
	}
	return out, err
}

func (c *Catalog) expand(prompt string, limit int) (string, error) {
	if !strings.HasPrefix(prompt, "/") {
		return prompt, nil
	}
	name, rest := splitCommand(prompt[1:])
	if skillName, ok := strings.CutPrefix(name, "skill:"); ok {
		if s, found := c.skill(skillName); found {
			return c.inlineSkill(s, strings.TrimSpace(rest))
		}
		return prompt, nil
	}
	for _, t := range c.Templates {
		if t.Name != name {
			continue
		}
		line, more, _ := strings.Cut(rest, "\n")
		out, ok := substitute(t.Content, ParseArgs(line), limit)
		if !ok {
			return "", &refusal{fmt.Sprintf("template /%s expands to more than %d bytes", name, limit)}
		}
		if more = strings.TrimSpace(more); more != "" {
			out += "\n\n" + more
		}
		return out, nil
	}
	return prompt, nil
}

// splitCommand cuts "name args" at the first white space (pi cuts at the
// first space only, so "/name" followed by a line break was not found).
func splitCommand(s string) (name, rest string) {
	i := strings.IndexFunc(s, unicode.IsSpace)
	if i < 0 {
		return s, ""
	}
	if s[i] == '\n' {
		return s[:i], s[i:]
	}
	return s[:i], s[i+1:]
}

func (c *Catalog) skill(name string) (Skill, bool) {
	for _, s := range c.Skills {
		if s.Name == name {
			return s, true
		}
	}
	return Skill{}, false
}

// inlineSkill reads the skill's body now (it may have changed since Load)
// and wraps it as pi does.
func (c *Catalog) inlineSkill(s Skill, args string) (string, error) {
	read := c.read
	if read == nil {
		read = func(p string) (string, error) {
			b, err := os.ReadFile(p)
			return normalizeNewlines(string(b)), err
		}
	}
	text, err := read(s.Path)
	if err != nil {
		return "", fmt.Errorf("inline skill %s: read %s: %w (restore the file or drop /skill:%s from the prompt)", s.Name, s.Path, err, s.Name)
	}
	_, body, _ := splitFrontmatter(text)
	block := `<skill name="` + s.Name + `" location="` + s.Path + `">` + "\n" +
		"References are relative to " + s.Dir + ".\n\n" + strings.TrimSpace(body) + "\n</skill>"
	if args != "" {
		block += "\n\n" + args
	}
	return block, nil
}

// ParseArgs splits a template's arguments as pi does: at spaces and tabs,
// with '…' and "…" grouping (quotes removed, no escapes); empty
// arguments are dropped.
func ParseArgs(s string) []string {
	var args []string
	var cur strings.Builder
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '"' || r == '\'':
			quote = r
		case r == ' ' || r == '\t':
			if cur.Len() > 0 {
				args = append(args, cur.String())
				cur.Reset()
			}
		default:
			cur.WriteRune(r)
		}
	}
	if cur.Len() > 0 {
		args = append(args, cur.String())
	}
	return args
}

// SubstituteArgs replaces, in one pass over content, $1…$N (positional,
// from 1), $@ and $ARGUMENTS (all arguments joined by spaces), ${@:N}
// (from the Nth on) and ${@:N:L} (L arguments from the Nth). Out of range
// gives "". Text brought in by an argument is never substituted again.
func SubstituteArgs(content string, args []string) string {
	out, _ := substitute(content, args, 0)
	return out
}

// substitute is SubstituteArgs stopping (ok false) once the output passes
// limit bytes; limit 0 is no limit.
func substitute(content string, args []string, limit int) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(content); {
		if limit > 0 && b.Len() > limit {
			return "", false
		}
		if content[i] != '$' {
			j := strings.IndexByte(content[i:], '$')
			if j < 0 {
				j = len(content) - i
			}
			b.WriteString(content[i : i+j])
			i += j
			continue
		}
		val, n := placeholder(content[i:], args)
		if n == 0 {
			b.WriteByte('$')
			i++
			continue
		}
		b.WriteString(val)
		i += n
	}
	return b.String(), true
}

// placeholder reads the placeholder at the start of s (which starts with
// '$') and returns its value and length; length 0 means none.
func placeholder(s string, args []string) (string, int) {
	rest := s[1:]
	switch {
	case strings.HasPrefix(rest, "ARGUMENTS"):
		return strings.Join(args, " "), 1 + len("ARGUMENTS")
	case strings.HasPrefix(rest, "@"):
		return strings.Join(args, " "), 2
	case strings.HasPrefix(rest, "{@:"):
		return slicePlaceholder(rest[3:], args)
	}
	d := digits(rest)
	if d == 0 {
		return "", 0
	}
	n, err := strconv.Atoi(rest[:d])
	if err != nil || n < 1 || n > len(args) {
		return "", 1 + d
	}
	return args[n-1], 1 + d
}

// slicePlaceholder reads "N}" or "N:L}" after "${@:".
func slicePlaceholder(s string, args []string) (string, int) {
	const lead = 4 // "${@:"
	d := digits(s)
	if d == 0 {
		return "", 0
	}
	start := atoiSat(s[:d]) - 1
	start = max(start, 0)
	end := len(args)
	used := d
	if strings.HasPrefix(s[used:], ":") {
		l := digits(s[used+1:])
		if l == 0 {
			return "", 0
		}
		length := atoiSat(s[used+1 : used+1+l])
		used += 1 + l
		end = min(end, start+length)
	}
	if !strings.HasPrefix(s[used:], "}") {
		return "", 0
	}
	if start >= end {
		return "", lead + used + 1
	}
	return strings.Join(args[start:end], " "), lead + used + 1
}

// digits counts the ASCII digits at the start of s.
func digits(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// atoiSat parses digits, saturating instead of overflowing.
func atoiSat(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 1 << 30
	}
	return min(n, 1<<30)
}
