package resources

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"gopi/internal/golden"
)

// fixedNow is the date every golden prompt ends with.
func fixedNow() time.Time { return time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC) }

// fixture returns options over testdata/tree, mounted as the filesystem
// root, so that the paths in golden files are the same on every machine.
func fixture(cwd string, tools ...string) Options {
	return Options{
		FS:          os.DirFS("testdata/tree"),
		Cwd:         cwd,
		Home:        "/home/u",
		GopiHome:    "/home/u/.gopi",
		Now:         fixedNow,
		ActiveTools: tools,
	}
}

func mustLoad(t *testing.T, opts Options) *Catalog {
	t.Helper()
	c, err := Load(opts)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return c
}

var defaultTools = []string{"read", "bash", "edit", "write"}

// The project's SYSTEM.md replaces the built-in prompt; the global
// APPEND_SYSTEM.md, four context files (global first, then root down),
// and the skills follow.
func TestSystemPromptGolden(t *testing.T) {
	t.Parallel()
	c := mustLoad(t, fixture("/work/repo/app", defaultTools...))
	golden.Check(t, golden.Path(t), []byte(c.SystemPrompt()))
}

// Without SYSTEM.md the built-in prompt lists the active tools and the
// guidelines that fit them.
func TestSystemPromptBuiltin(t *testing.T) {
	t.Parallel()
	c := mustLoad(t, fixture("/work/repo", "read", "bash", "edit", "write", "grep", "find", "ls"))
	golden.Check(t, golden.Path(t), []byte(c.SystemPrompt()))
}

// TestCatalogListing pins what `gopi context` lists: everything found and
// everything skipped with why.
func TestCatalogListing(t *testing.T) {
	t.Parallel()
	c := mustLoad(t, fixture("/work/repo/app", defaultTools...))
	golden.Check(t, golden.Path(t), []byte(listing(c)))
}

func listing(c *Catalog) string {
	var b strings.Builder
	for _, it := range c.Found {
		fmt.Fprintf(&b, "found   %-8s %-7s %-10s %s\n", it.Kind, it.Source, it.Name, it.Path)
	}
	for _, s := range c.Skipped {
		fmt.Fprintf(&b, "skipped %-8s %s: %s\n", s.Kind, s.Path, s.Reason)
	}
	for _, w := range c.Warnings {
		fmt.Fprintf(&b, "warning %-8s %s: %s\n", w.Kind, w.Path, w.Message)
	}
	return b.String()
}

func TestBareFindsNothing(t *testing.T) {
	t.Parallel()
	opts := fixture("/work/repo/app", defaultTools...)
	opts.Bare = true
	c := mustLoad(t, opts)
	if len(c.ContextFiles)+len(c.Skills)+len(c.Templates)+len(c.Found) != 0 || c.Base != "" || c.Append != "" {
		t.Fatalf("bare mode found resources:\n%s", listing(c))
	}
	want := []string{"--bare"}
	for _, kind := range []Kind{KindContext, KindSkill, KindTemplate} {
		if !hasSkip(c, kind, "", want[0]) {
			t.Errorf("bare mode does not say %s discovery is off:\n%s", kind, listing(c))
		}
	}
	p := c.SystemPrompt()
	if !strings.HasPrefix(p, builtinIntro) || strings.Contains(p, "Project Context") || strings.Contains(p, "available_skills") {
		t.Errorf("bare prompt is not the built-in one:\n%s", p)
	}
	if got, _ := c.Expand("/fix 12"); got != "/fix 12" {
		t.Errorf("bare mode expanded a template: %q", got)
	}
}

func hasSkip(c *Catalog, kind Kind, path, reasonPart string) bool {
	for _, s := range c.Skipped {
		if s.Kind == kind && s.Path == path && strings.Contains(s.Reason, reasonPart) {
			return true
		}
	}
	return false
}

func TestSwitchesTurnOffOneKindEach(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		set  func(*Options)
		kind Kind
		flag string
	}{
		{"no-skills", func(o *Options) { o.NoSkills = true }, KindSkill, "--no-skills"},
		{"no-templates", func(o *Options) { o.NoTemplates = true }, KindTemplate, "--no-prompt-templates"},
		{"no-context-files", func(o *Options) { o.NoContextFiles = true }, KindContext, "--no-context-files"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := fixture("/work/repo/app", defaultTools...)
			tt.set(&opts)
			c := mustLoad(t, opts)
			counts := map[Kind]int{KindSkill: len(c.Skills), KindTemplate: len(c.Templates), KindContext: len(c.ContextFiles)}
			for kind, n := range counts {
				if kind == tt.kind && n != 0 {
					t.Errorf("%s still found %d %s resources", tt.flag, n, kind)
				}
				if kind != tt.kind && n == 0 {
					t.Errorf("%s also switched off %s", tt.flag, kind)
				}
			}
			if !hasSkip(c, tt.kind, "", tt.flag) {
				t.Errorf("Skipped does not name %s:\n%s", tt.flag, listing(c))
			}
		})
	}
}

func TestBasePromptPrecedence(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		"p/.gopi/SYSTEM.md":        {Data: []byte("project system")},
		"p/.gopi/APPEND_SYSTEM.md": {Data: []byte("project append")},
		"g/SYSTEM.md":              {Data: []byte("global system")},
		"g/APPEND_SYSTEM.md":       {Data: []byte("global append")},
		"p/custom.md":              {Data: []byte("system from a file\r\nwith CRLF")},
		"q/keep":                   {Data: []byte("x")},
	}
	tests := []struct {
		name, cwd, flag, appendFlag string
		wantBase, wantAppend        string
	}{
		{"flag text wins", "/p", "be brief", "", "be brief", "project append"},
		{"flag path relative to cwd", "/p", "custom.md", "", "system from a file\nwith CRLF", "project append"},
		{"flag path absolute", "/q", "/p/custom.md", "more", "system from a file\nwith CRLF", "more"},
		{"project over global", "/p", "", "", "project system", "project append"},
		{"global when project has none", "/q", "", "", "global system", "global append"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := mustLoad(t, Options{FS: fsys, Cwd: tt.cwd, GopiHome: "/g", Now: fixedNow, SystemPrompt: tt.flag, AppendSystemPrompt: tt.appendFlag})
			if c.Base != tt.wantBase || c.Append != tt.wantAppend {
				t.Errorf("base %q append %q, want %q and %q", c.Base, c.Append, tt.wantBase, tt.wantAppend)
			}
			p := c.SystemPrompt()
			wantPrompt := tt.wantBase + "\n\n" + tt.wantAppend + "\n\nCurrent date: 2026-03-15\nCurrent working directory: " + tt.cwd
			if p != wantPrompt {
				t.Errorf("prompt\n%q\nwant\n%q", p, wantPrompt)
			}
		})
	}
}

func TestSkillsBlockNeedsReadTool(t *testing.T) {
	t.Parallel()
	with := mustLoad(t, fixture("/work/repo/app", "read")).SystemPrompt()
	without := mustLoad(t, fixture("/work/repo/app", "bash", "edit")).SystemPrompt()
	if !strings.Contains(with, "<available_skills>") {
		t.Errorf("prompt with read lacks the skills block:\n%s", with)
	}
	if strings.Contains(without, "available_skills") {
		t.Errorf("prompt without read has the skills block:\n%s", without)
	}
}

func TestAgentsSkillsStopAtGitRoot(t *testing.T) {
	t.Parallel()
	skill := func(desc string) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte("---\ndescription: " + desc + "\n---\nbody\n")}
	}
	fsys := fstest.MapFS{
		"a/.agents/skills/above/SKILL.md":    skill("above the git root"),
		"a/b/.git":                           {Data: []byte("gitdir: elsewhere")},
		"a/b/.agents/skills/inrepo/SKILL.md": skill("at the git root"),
		"a/b/c/.agents/skills/near/SKILL.md": skill("in the working directory"),
		"h/.agents/skills/mine/SKILL.md":     skill("the user's own"),
	}
	c := mustLoad(t, Options{FS: fsys, Cwd: "/a/b/c", Home: "/h", Now: fixedNow})
	var got []string
	for _, s := range c.Skills {
		got = append(got, s.Name+":"+s.Source)
	}
	want := "near:project inrepo:project mine:user"
	if strings.Join(got, " ") != want {
		t.Errorf("skills %v, want %s", got, want)
	}
}

func TestLoadRejectsRelativePaths(t *testing.T) {
	t.Parallel()
	for _, opts := range []Options{{Cwd: "rel"}, {Cwd: ""}, {Cwd: "/x", GopiHome: "g"}, {Cwd: "/x", Home: "~"}} {
		if _, err := Load(opts); err == nil {
			t.Errorf("Load(%+v) accepted a relative path", opts)
		}
	}
}
