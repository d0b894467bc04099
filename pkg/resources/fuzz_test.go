package resources

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func FuzzSubstituteArgs(f *testing.F) {
	f.Add("Run $1 on ${@:2:2}, then $@ and $ARGUMENTS", `a "b c" 'd'`)
	f.Add("${@:0} ${@:99:1} $0 $99999999999999999999 ${@:", "x")
	f.Fuzz(func(t *testing.T, content, line string) {
		args := ParseArgs(line)
		out := SubstituteArgs(content, args)
		if !strings.ContainsRune(content, '$') && out != content {
			t.Fatalf("text without $ changed: %q -> %q", content, out)
		}
		if utf8.ValidString(content) && utf8.ValidString(line) && !utf8.ValidString(out) {
			t.Fatalf("valid input gave invalid UTF-8: %q", out)
		}
	})
}

func FuzzParseSkill(f *testing.F) {
	f.Add("---\nname: a\ndescription: d\n---\nbody")
	f.Add("---\n: [\n---")
	f.Add("---")
	f.Fuzz(func(t *testing.T, text string) {
		s, problems, _ := parseSkill(text, "folder")
		if len(problems) == 0 && (len(validateSkillName(s.Name)) > 0 || len(validateDescription(s.Description)) > 0) {
			t.Fatalf("accepted an invalid skill %+v", s)
		}
	})
}
