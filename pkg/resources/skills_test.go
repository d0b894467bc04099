package resources

import (
	"strings"
	"testing"
	"testing/fstest"
)

func TestParseSkill(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", MaxSkillNameLen+1)
	tests := []struct {
		name, text, folder string
		wantName           string
		wantProblem        string // "" means usable
		wantWarning        string
	}{
		{"valid", "---\nname: valid-skill\ndescription: Does things.\n---\nbody", "valid-skill", "valid-skill", "", ""},
		{"name from folder", "---\ndescription: Does things.\n---\n", "from-folder", "from-folder", "", ""},
		{"multiline description", "---\ndescription: |\n  line one\n  line two\n---\n", "multi", "multi", "", ""},
		{"unknown field is fine", "---\ndescription: d\nlicense: MIT\n---\n", "x", "x", "", ""},
		{"CRLF", "---\r\ndescription: d\r\n---\r\nbody", "crlf", "crlf", "", ""},
		{"missing description", "---\nname: nodesc\n---\nbody", "nodesc", "", "description is required", ""},
		{"blank description", "---\ndescription: \"  \"\n---\n", "blank", "", "description is required", ""},
		{"no frontmatter", "# Just a body", "plain", "", "description is required", ""},
		{"description too long", "---\ndescription: " + strings.Repeat("d", MaxSkillDescriptionLen+1) + "\n---\n", "big", "", "at most 1024", ""},
		{"description at limit", "---\ndescription: " + strings.Repeat("d", MaxSkillDescriptionLen) + "\n---\n", "edge", "edge", "", ""},
		{"uppercase", "---\nname: Bad\ndescription: d\n---\n", "Bad", "", "lowercase letters", ""},
		{"underscore folder", "---\ndescription: d\n---\n", "bad_name", "", "lowercase letters", ""},
		{"leading hyphen", "---\nname: -x\ndescription: d\n---\n", "-x", "", "start or end with a hyphen", ""},
		{"trailing hyphen", "---\nname: x-\ndescription: d\n---\n", "x-", "", "start or end with a hyphen", ""},
		{"consecutive hyphens", "---\nname: a--b\ndescription: d\n---\n", "a--b", "", "consecutive hyphens", ""},
		{"too long", "---\nname: " + long + "\ndescription: d\n---\n", long, "", "at most 64", ""},
		{"invalid YAML", "---\nname: [unclosed\ndescription: d\n---\n", "yaml", "", "invalid YAML frontmatter", ""},
		{"name not a string", "---\nname: 12\ndescription: d\n---\n", "num", "", `"name" must be a string`, ""},
		{"name differs from folder", "---\nname: other\ndescription: d\n---\n", "folder", "other", "", "does not match"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, problems, warnings := parseSkill(tt.text, tt.folder)
			got := strings.Join(problems, "; ")
			switch {
			case tt.wantProblem == "" && got != "":
				t.Fatalf("unexpected problems: %s", got)
			case tt.wantProblem != "" && !strings.Contains(got, tt.wantProblem):
				t.Fatalf("problems %q, want one containing %q", got, tt.wantProblem)
			case tt.wantProblem == "" && s.Name != tt.wantName:
				t.Errorf("name %q, want %q", s.Name, tt.wantName)
			}
			if w := strings.Join(warnings, "; "); !strings.Contains(w, tt.wantWarning) || (tt.wantWarning == "" && w != "") {
				t.Errorf("warnings %q, want %q", w, tt.wantWarning)
			}
		})
	}
}

func TestSkillDiscoveryRules(t *testing.T) {
	t.Parallel()
	skill := func(desc string) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte("---\ndescription: " + desc + "\n---\nbody\n")}
	}
	fsys := fstest.MapFS{
		"p/.gopi/skills/root.md":                      skill("a .md file in the skills root"),
		"p/.gopi/skills/outer/SKILL.md":               skill("a folder with SKILL.md"),
		"p/.gopi/skills/outer/inner/SKILL.md":         skill("not searched: its parent is a skill"),
		"p/.gopi/skills/group/nested/SKILL.md":        skill("found below a plain folder"),
		"p/.gopi/skills/group/loose.md":               skill("not a skill: .md below the root"),
		"p/.gopi/skills/.hidden/SKILL.md":             skill("hidden folders are ignored"),
		"p/.gopi/skills/node_modules/dep/SKILL.md":    skill("dependencies are ignored"),
		"p/.gopi/skills/notes.txt":                    {Data: []byte("not markdown")},
		"g/skills/outer/SKILL.md":                     skill("the user's outer, shadowed"),
		"g/skills/only-user/SKILL.md":                 skill("the user's own"),
		"g/skills/escape/SKILL.md":                    skill(`"<tag> & 'quote'"`),
		"p/.agents/skills/agents-skill/SKILL.md":      skill("from .agents"),
		"p/.agents/skills/agents-skill/more/SKILL.md": skill("not searched"),
	}
	c := mustLoad(t, Options{FS: fsys, Cwd: "/p", GopiHome: "/g", Now: fixedNow, ActiveTools: []string{"read"}})
	var names []string
	for _, s := range c.Skills {
		names = append(names, s.Name)
	}
	want := "nested outer root agents-skill escape only-user"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("skills %q, want %q\n%s", got, want, listing(c))
	}
	if !hasSkip(c, KindSkill, "/g/skills/outer/SKILL.md", "already taken by /p/.gopi/skills/outer/SKILL.md") {
		t.Errorf("collision not reported:\n%s", listing(c))
	}
	if p := c.SystemPrompt(); !strings.Contains(p, "<description>&lt;tag&gt; &amp; &apos;quote&apos;</description>") {
		t.Errorf("description not XML-escaped:\n%s", p)
	}
}
