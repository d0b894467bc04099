package assemble_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopi/internal/fdcheck"
	"gopi/pkg/ai"
	"gopi/pkg/assemble"
	"gopi/pkg/session"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// Resources says each warning and each resource skipped for a fault on
// stderr, not a discovery switched off; LoadCatalog says nothing.
func TestResourcesSaysWhatIsWrong(t *testing.T) {
	s := settings(t)
	skills := filepath.Join(s.Cwd, ".gopi", "skills")
	write(t, filepath.Join(skills, "foo.md"), "---\nname: bar\ndescription: does bar\n---\nDo bar.")
	write(t, filepath.Join(skills, "broken.md"), "---\nname: broken\n---\nNo description.")
	s.Resources = &assemble.ResourceSettings{NoTemplates: true}
	var stderr bytes.Buffer
	cat, err := assemble.Resources(s, env(&stderr))
	if err != nil {
		t.Fatal(err)
	}
	out := stderr.String()
	if !strings.Contains(out, "gopi: warning: ") || !strings.Contains(out, `name "bar" does not match`) ||
		!strings.Contains(out, "gopi: ") || !strings.Contains(out, "broken.md") || strings.Contains(out, "discovery is off") {
		t.Errorf("stderr:\n%s", out)
	}
	if len(cat.Warnings) != 1 || len(cat.Skipped) < 2 {
		t.Errorf("warnings %v, skipped %v", cat.Warnings, cat.Skipped)
	}
	stderr.Reset()
	if _, err := assemble.LoadCatalog(s, env(&stderr)); err != nil || stderr.Len() != 0 {
		t.Errorf("LoadCatalog: %v, stderr %q", err, stderr.String())
	}
}

// The discoveries the settings switch off are off; the user's home is
// Env's HOME; Bare discovers nothing.
func TestLoadCatalogSwitches(t *testing.T) {
	s := settings(t)
	home := t.TempDir()
	write(t, filepath.Join(s.Cwd, "AGENTS.md"), "PROJECT RULES")
	write(t, filepath.Join(s.Cwd, ".gopi", "skills", "foo", "SKILL.md"), "---\nname: foo\ndescription: does foo\n---\nDo foo.")
	write(t, filepath.Join(s.Cwd, ".gopi", "prompts", "fix.md"), "Fix it.")
	write(t, filepath.Join(home, ".agents", "skills", "bar", "SKILL.md"), "---\nname: bar\ndescription: does bar\n---\nDo bar.")
	write(t, filepath.Join(s.Home, "AGENTS.md"), "GOPI HOME RULES")
	e := env(&bytes.Buffer{})
	e.Environ = append(e.Environ, "HOME="+home)
	load := func(r *assemble.ResourceSettings, bare bool) (prompt string, skills, templates int) {
		t.Helper()
		s := s
		s.Resources, s.Bare = r, bare
		cat, err := assemble.LoadCatalog(s, e)
		if err != nil {
			t.Fatal(err)
		}
		return cat.SystemPromptFor(s.Tools), len(cat.Skills), len(cat.Templates)
	}
	p, sk, tm := load(nil, false)
	if !strings.Contains(p, "PROJECT RULES") || !strings.Contains(p, "GOPI HOME RULES") || sk != 2 || tm != 1 {
		t.Errorf("all: skills %d, templates %d, prompt:\n%s", sk, tm, p)
	}
	if p, sk, tm := load(&assemble.ResourceSettings{NoSkills: true, NoTemplates: true, NoContextFiles: true}, false); strings.Contains(p, "RULES") || sk != 0 || tm != 0 {
		t.Errorf("none: skills %d, templates %d, prompt:\n%s", sk, tm, p)
	}
	if p, sk, tm := load(nil, true); strings.Contains(p, "RULES") || sk != 0 || tm != 0 {
		t.Errorf("bare: skills %d, templates %d, prompt:\n%s", sk, tm, p)
	}
	if p, _, _ := load(&assemble.ResourceSettings{SystemPrompt: "YOU ARE A TEST", AppendSystemPrompt: "AND BRIEF"}, false); !strings.HasPrefix(p, "YOU ARE A TEST") || !strings.Contains(p, "AND BRIEF") {
		t.Errorf("given prompts:\n%s", p)
	}
}

// A refused --append-system-prompt file names the key it came from.
func TestAppendPromptFileRefused(t *testing.T) {
	s := settings(t)
	s.Resources = &assemble.ResourceSettings{AppendSystemPrompt: "/dev/zero"}
	_, err := assemble.New(s, env(&bytes.Buffer{}))
	if classOf(err) != ai.ClassUsage || !strings.HasPrefix(err.Error(), `setting "appendSystemPrompt" names /dev/zero, which `) ||
		!strings.HasSuffix(err.Error(), ": give a regular file of at most 1 MiB, or the text itself") {
		t.Errorf("%v", err)
	}
}

// A catalog the caller loaded is used as it is; without resources the
// system prompt is the one given and there is no catalog.
func TestCatalogGivenOrNone(t *testing.T) {
	fdcheck.Check(t)
	s := settings(t)
	a, err := assemble.New(s, env(&bytes.Buffer{}))
	if err != nil {
		t.Fatal(err)
	}
	a.Close()
	if a.Catalog() != nil || a.Settings().SystemPrompt != "be brief" {
		t.Errorf("catalog %v, prompt %q", a.Catalog(), a.Settings().SystemPrompt)
	}
	write(t, filepath.Join(s.Cwd, "AGENTS.md"), "PROJECT RULES")
	cat, err := assemble.LoadCatalog(s, env(&bytes.Buffer{}))
	if err != nil {
		t.Fatal(err)
	}
	s.Catalog = cat
	s.Cwd = t.TempDir() // not read again
	b, err := assemble.New(s, env(&bytes.Buffer{}))
	if err != nil {
		t.Fatal(err)
	}
	b.Close()
	if b.Catalog() != cat || !strings.Contains(b.Settings().SystemPrompt, "PROJECT RULES") {
		t.Errorf("catalog %p (given %p), prompt %q", b.Catalog(), cat, b.Settings().SystemPrompt)
	}
}

// Defined agents add the task tool only to tools offered, never when
// excluded; a child's prompt keeps task only when it may delegate again.
func TestDefinedAgentsAddTheTaskTool(t *testing.T) {
	s := settings(t)
	s.SystemPrompt = ""
	s.Resources = &assemble.ResourceSettings{}
	none, err := assemble.New(s, env(&bytes.Buffer{}))
	if err != nil {
		t.Fatal(err)
	}
	none.Close()
	if got := none.Settings().Tools; len(got) != 1 || got[0] != "bash" {
		t.Errorf("no agents defined: tools %q", got)
	}
	write(t, filepath.Join(s.Cwd, ".gopi", "agents", "scout.md"), "---\ndescription: looks around\n---\nLook around.")
	s.Resources = &assemble.ResourceSettings{}
	s.Tools = nil
	a, err := assemble.New(s, env(&bytes.Buffer{}))
	if err != nil {
		t.Fatal(err)
	}
	a.Close()
	if got := a.Settings().Tools; len(got) != 0 {
		t.Errorf("no tools offered: %q", got)
	}
	s.Tools = []string{"bash"}
	c, err := assemble.New(s, env(&bytes.Buffer{}))
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	const delegate = "Delegate a self-contained job"
	if got := c.Settings(); len(got.Tools) != 2 || !strings.Contains(got.SystemPrompt, delegate) || strings.Contains(got.Subagents.SystemPrompt, delegate) {
		t.Errorf("one level of children: tools %q, a child's prompt:\n%s", got.Tools, got.Subagents.SystemPrompt)
	}
	s.Tools = []string{"bash", "task"}
	s.Subagents.MaxDepth = 2
	b, err := assemble.New(s, env(&bytes.Buffer{}))
	if err != nil {
		t.Fatal(err)
	}
	b.Close()
	if got := b.Settings(); len(got.Tools) != 2 || !strings.Contains(got.Subagents.SystemPrompt, delegate) {
		t.Errorf("tools %q, a child's prompt:\n%s", got.Tools, got.Subagents.SystemPrompt)
	}
}

// MentionsDir finds a folder named in a summary, a result's details or
// its text, only in a session on disk and a folder that exists.
func TestMentionsDir(t *testing.T) {
	dir := t.TempDir()
	mk := func(e session.Entry) session.Store {
		st := session.NewMemoryStore(dir, session.Options{})
		if _, err := st.Append(t.Context(), e); err != nil {
			t.Fatal(err)
		}
		return st
	}
	text := mk(session.Entry{Type: "message", Message: &ai.Message{Role: ai.RoleToolResult, ToolCallID: "c", ToolName: "bash",
		Content: []ai.Content{ai.TextContent("nothing"), ai.TextContent("see " + dir + "/out.txt")}}})
	details := mk(session.Entry{Type: "message", Message: &ai.Message{Role: ai.RoleToolResult, ToolCallID: "c", ToolName: "bash",
		Content: []ai.Content{ai.TextContent("cut")}, Details: json.RawMessage(`{"fullOutputPath":"` + dir + `/o"}`)}})
	summary := mk(session.Entry{Type: "branch_summary", FromID: "root", Summary: "kept in " + dir})
	none := mk(session.Entry{Type: "message", Message: &ai.Message{Role: ai.RoleToolResult, ToolCallID: "c", ToolName: "bash", Content: []ai.Content{ai.TextContent("x")}}})
	for name, tc := range map[string]struct {
		st        session.Store
		file, dir string
		mentioned bool
	}{
		"text": {text, "f", dir, true}, "details": {details, "f", dir, true}, "summary": {summary, "f", dir, true},
		"none": {none, "f", dir, false}, "no file": {text, "", dir, false}, "no folder": {text, "f", "", false},
		"no store": {nil, "f", dir, false}, "gone": {text, "f", filepath.Join(dir, "gone"), false},
	} {
		if assemble.MentionsDir(tc.st, tc.file, tc.dir) != tc.mentioned {
			t.Errorf("%s: want %v", name, tc.mentioned)
		}
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if assemble.MentionsDir(text, "f", dir) {
		t.Error("a folder removed is mentioned")
	}
}

// Getenv reads Env.Environ, the last setting winning, names matched
// whole.
func TestEnvGetenv(t *testing.T) {
	e := assemble.Env{Environ: []string{"A=1", "AB=2", "A=3", "B", "C=", "=D"}}
	for key, want := range map[string]string{"A": "3", "AB": "2", "B": "", "C": "", "": "D", "Z": ""} {
		if got := e.Getenv(key); got != want {
			t.Errorf("%q: %q, want %q", key, got, want)
		}
	}
}

// Errors carry their class and wrap what they say.
func TestErrors(t *testing.T) {
	inner := errors.New("disk full")
	err := assemble.SessionErr(inner)
	if classOf(err) != ai.ClassSession || !errors.Is(err, inner) || err.Error() != "disk full" {
		t.Errorf("%v", err)
	}
	if err := assemble.Usagef("bad %s", "flag"); classOf(err) != ai.ClassUsage || err.Error() != "bad flag" {
		t.Errorf("%v", err)
	}
}

// Resuming: the settings name a session to continue.
func TestResuming(t *testing.T) {
	for ss, want := range map[assemble.SessionSettings]bool{
		{}: false, {Path: "x"}: true, {Continue: true}: true, {Fork: "x"}: true, {ID: "x"}: true, {Leaf: "x"}: false, {None: true}: false,
	} {
		s := assemble.Settings{Session: ss}
		if s.Resuming() != want {
			t.Errorf("%+v: %v", ss, !want)
		}
	}
}
