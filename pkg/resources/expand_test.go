package resources

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

// The cases of pi's prompt-templates tests, plus gopi's single-pass ones.
func TestSubstituteArgs(t *testing.T) {
	t.Parallel()
	many := func(n int, prefix string, from int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("%s%d", prefix, i+from)
		}
		return out
	}
	tests := []struct {
		name    string
		content string
		args    []string
		want    string
	}{
		{"ARGUMENTS", "Test: $ARGUMENTS", []string{"a", "b", "c"}, "Test: a b c"},
		{"at sign", "Test: $@", []string{"a", "b", "c"}, "Test: a b c"},
		{"no recursion of ARGUMENTS", "$ARGUMENTS", []string{"$1", "$ARGUMENTS"}, "$1 $ARGUMENTS"},
		{"no recursion of at", "$@", []string{"$100", "$1"}, "$100 $1"},
		{"positional before wildcard", "$1: $ARGUMENTS", []string{"prefix", "a", "b"}, "prefix: prefix a b"},
		{"positional before at", "$1: $@", []string{"prefix", "a", "b"}, "prefix: prefix a b"},
		{"no args ARGUMENTS", "Test: $ARGUMENTS", nil, "Test: "},
		{"no args at", "Test: $@", nil, "Test: "},
		{"no args positional", "Test: $1", nil, "Test: "},
		{"repeated", "$ARGUMENTS and $ARGUMENTS", []string{"a", "b"}, "a b and a b"},
		{"mixed wildcards", "$@ and $ARGUMENTS", []string{"a", "b"}, "a b and a b"},
		{"specials in values", "$1 $2: $ARGUMENTS", []string{"arg100", "@user"}, "arg100 @user: arg100 @user"},
		{"out of range is empty", "$1 $2 $3 $4 $5", []string{"a", "b"}, "a b   "},
		{"unicode", "$ARGUMENTS", []string{"日本語", "🎉", "café"}, "日本語 🎉 café"},
		{"newlines and tabs kept", "$1 $2", []string{"line1\nline2", "tab\tthere"}, "line1\nline2 tab\tthere"},
		{"adjacent", "$1$2", []string{"a", "b"}, "ab"},
		{"args with spaces", "$ARGUMENTS", []string{"first arg", "second arg"}, "first arg second arg"},
		{"zero is empty", "$0", []string{"a", "b"}, ""},
		{"digits end at dot", "$1.5", []string{"a"}, "a.5"},
		{"prefix glued", "pre$ARGUMENTS", []string{"a", "b"}, "prea b"},
		{"empty arg kept", "$ARGUMENTS", []string{"a", "", "c"}, "a  c"},
		{"value named ARGUMENTS", "Prefix $ARGUMENTS suffix", []string{"ARGUMENTS"}, "Prefix ARGUMENTS suffix"},
		{"not placeholders", "$A $$ $ $ARGS", []string{"a"}, "$A $$ $ $ARGS"},
		{"case sensitive", "$arguments $Arguments $ARGUMENTS", []string{"a", "b"}, "$arguments $Arguments a b"},
		{"many", "$ARGUMENTS", many(100, "arg", 0), strings.Join(many(100, "arg", 0), " ")},
		{"two digits", "$10 $12 $15", many(15, "val", 0), "val9 val11 val14"},
		{"no escape", `Price: \$100`, nil, `Price: \`},
		{"plain", "Just plain text", []string{"a", "b"}, "Just plain text"},
		{"huge index", "$99999999999999999999", []string{"a"}, ""},
		{"slice from", "${@:2}", []string{"a", "b", "c", "d"}, "b c d"},
		{"slice from 1", "${@:1}", []string{"a", "b", "c"}, "a b c"},
		{"slice with length", "${@:2:2}", []string{"a", "b", "c", "d"}, "b c"},
		{"slice length 3", "${@:2:3}", []string{"a", "b", "c", "d", "e"}, "b c d"},
		{"slice past end", "${@:99}", []string{"a", "b"}, ""},
		{"slice past end with length", "${@:10:5}", []string{"a", "b"}, ""},
		{"slice zero length", "${@:2:0}", []string{"a", "b", "c"}, ""},
		{"slice long length", "${@:2:99}", []string{"a", "b", "c"}, "b c"},
		{"slice and at", "${@:2} vs $@", []string{"a", "b", "c"}, "b c vs a b c"},
		{"slice no recursion", "${@:1}", []string{"${@:2}", "test"}, "${@:2} test"},
		{"slice zero is one", "${@:0}", []string{"a", "b", "c"}, "a b c"},
		{"slice of none", "${@:1}", nil, ""},
		{"slice glued", "prefix${@:2}suffix", []string{"a", "b", "c"}, "prefixb csuffix"},
		{"combined", "Run $1 on ${@:2:2}, then process $@", []string{"eslint", "f1", "f2", "f3"}, "Run eslint on f1 f2, then process eslint f1 f2 f3"},
		{"huge slice length", "${@:5:100}", many(10, "arg", 1), "arg5 arg6 arg7 arg8 arg9 arg10"},
		{"unclosed slice is literal", "${@:2", []string{"a", "b"}, "${@:2"},
		{"slice without digits is literal", "${@:}", []string{"a"}, "${@:}"},
		// Single pass: pi substitutes $1 first and then $@ over the result,
		// so a positional value holding $@ was expanded again there.
		{"positional value not re-expanded", "$1", []string{"$@", "x"}, "$@"},
		{"positional value slice not re-expanded", "$2", []string{"a", "${@:1}"}, "${@:1}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SubstituteArgs(tt.content, tt.args); got != tt.want {
				t.Errorf("SubstituteArgs(%q, %q) = %q, want %q", tt.content, tt.args, got, tt.want)
			}
		})
	}
}

func TestParseArgs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want []string
	}{
		{"a b c", []string{"a", "b", "c"}},
		{`"first arg" second`, []string{"first arg", "second"}},
		{"'first arg' second", []string{"first arg", "second"}},
		{`"double" 'single' "double again"`, []string{"double", "single", "double again"}},
		{"", nil},
		{"a  b   c", []string{"a", "b", "c"}},
		{"a\tb\tc", []string{"a", "b", "c"}},
		{`"" " "`, []string{" "}},
		{"$100 @user #tag", []string{"$100", "@user", "#tag"}},
		{"日本語 🎉 café", []string{"日本語", "🎉", "café"}},
		{"\"line1\nline2\" second", []string{"line1\nline2", "second"}},
		{`"quoted \"text\""`, []string{`quoted \text\`}},
		{"a b c   ", []string{"a", "b", "c"}},
		{"   a b c", []string{"a", "b", "c"}},
		{`it's "unterminated`, []string{`its "unterminated`}},
	}
	for _, tt := range tests {
		if got := ParseArgs(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("ParseArgs(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestExpand(t *testing.T) {
	t.Parallel()
	c := mustLoad(t, fixture("/work/repo/app", defaultTools...))
	tests := []struct{ name, prompt, want string }{
		{"template", `/fix 42 "crash on start" now`, "Fix issue #42. Details: crash on start now"},
		{"template without args", "/review-pr", "Review pull request  with focus on ."},
		{"user template", "/greet Ann Bob Cy", "Say hello to Ann and mention Bob Cy."},
		{"piped text after a line break", "/review-pr\n\n  diff\n\tline", "Review pull request  with focus on .\n\ndiff\n\tline"},
		{"args on the first line, text after", "/fix 7 now\nmore text", "Fix issue #7. Details: now\n\nmore text"},
		{"skill with piped text", "/skill:changelog\n\n  v1.2\n", "<skill name=\"changelog\" location=\"/work/repo/app/.gopi/skills/tools/changelog/SKILL.md\">\n" +
			"References are relative to /work/repo/app/.gopi/skills/tools/changelog.\n\nOnly inlined with /skill:changelog.\n</skill>\n\nv1.2"},
		{"unknown template as typed", "/nope a b", "/nope a b"},
		{"not a command", "fix 42", "fix 42"},
		{"slash alone", "/", "/"},
		{"unknown skill as typed", "/skill:nope do it", "/skill:nope do it"},
		{"skill", "/skill:review  look at pkg/ai ", "<skill name=\"review\" location=\"/work/repo/app/.gopi/skills/review/SKILL.md\">\n" +
			"References are relative to /work/repo/app/.gopi/skills/review.\n\n" +
			"# Review\n\nRead scripts/check.sh first, then review the diff.\n</skill>\n\nlook at pkg/ai"},
		{"hidden skill still inlines", "/skill:changelog", "<skill name=\"changelog\" location=\"/work/repo/app/.gopi/skills/tools/changelog/SKILL.md\">\n" +
			"References are relative to /work/repo/app/.gopi/skills/tools/changelog.\n\nOnly inlined with /skill:changelog.\n</skill>"},
		{"args are not expanded again", "/greet $2 x", "Say hello to $2 and mention x."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := c.Expand(tt.prompt)
			if err != nil {
				t.Fatalf("Expand: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Expand(%q) (-want +got):\n%s", tt.prompt, diff)
			}
		})
	}
}

func TestExpandSkillGoneIsAnError(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{"p/.gopi/skills/gone/SKILL.md": {Data: []byte("---\ndescription: d\n---\nbody")}}
	c := mustLoad(t, Options{FS: fsys, Cwd: "/p", Now: fixedNow})
	delete(fsys, "p/.gopi/skills/gone/SKILL.md")
	_, err := c.Expand("/skill:gone")
	if err == nil || !strings.Contains(err.Error(), "/p/.gopi/skills/gone/SKILL.md") {
		t.Fatalf("Expand of a deleted skill: err %v, want one naming the file", err)
	}
}

// A template repeating $@ grows the prompt by the arguments' length each
// time: ExpandWithin stops at the limit instead of building it whole.
func TestExpandWithinStopsAtTheLimit(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		"p/.gopi/prompts/many.md":         {Data: []byte(strings.Repeat("$@ ", 100_000))},
		"p/.gopi/skills/s/SKILL.md":       {Data: []byte("---\ndescription: d\n---\n" + strings.Repeat("b", 500))},
		"p/.gopi/prompts/short-enough.md": {Data: []byte("$1 $1")},
	}
	c := mustLoad(t, Options{FS: fsys, Cwd: "/p", Now: fixedNow})
	tests := []struct {
		prompt  string
		limit   int
		refused string // "" means expanded
	}{
		{"/many " + strings.Repeat("x", 1000), 4096, "template /many expands to more than 4096 bytes"},
		{"/skill:s go", 100, "the prompt expands to more than 100 bytes"},
		{"/short-enough abc", 7, ""},
		{"/short-enough abcd", 7, "the prompt expands to more than 7 bytes"},
		{"/many x", 0, ""}, // no limit
	}
	for _, tt := range tests {
		got, err := c.ExpandWithin(tt.prompt, tt.limit)
		switch {
		case tt.refused == "" && err != nil:
			t.Errorf("ExpandWithin(%.20q, %d): %v", tt.prompt, tt.limit, err)
		case tt.refused != "" && (!errors.Is(err, ErrRefused) || err.Error() != tt.refused):
			t.Errorf("ExpandWithin(%.20q, %d): %d bytes, error %v; want %q", tt.prompt, tt.limit, len(got), err, tt.refused)
		}
	}
}
