package settings

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"gopi/pkg/tools"
)

const allTools = "read,write,edit,bash,grep,find,ls,task"

// selection is the tools a home file, a project file, GOPI_TOOLS and
// --exclude-tools select, or the error.
func selection(t *testing.T, home, project, env string, exclude ...string) (string, error) {
	t.Helper()
	p := newPlace(t, home, project)
	if env != "" {
		p.env = map[string]string{"GOPI_TOOLS": env}
	}
	got, err := p.load(t, runFlags(), false).Tools(false, exclude)
	return strings.Join(got, ","), err
}

// Each "tools" value replaces the selection (names and patterns) or, all
// +name and -name, changes the one so far; --exclude-tools removes last.
func TestToolSelection(t *testing.T) {
	custom := `"customTools": [{"name": "mytool", "command": "true"}]`
	for _, c := range []struct {
		name, home, project, env string
		exclude                  []string
		want                     string
	}{
		{name: "default", want: "read,write,edit,bash"},
		{name: "custom tools are offered by default", project: `{` + custom + `}`, want: "read,write,edit,bash,mytool"},
		{name: "every tool", project: `{"tools": "*",` + custom + `}`, want: allTools + ",mytool"},
		{name: "a pattern", project: `{"tools": ["g*", "*s"]}`, want: "grep,ls"},
		{name: "a pattern in the middle", project: `{"tools": "b*h"}`, want: "bash"},
		{name: "each tool once", project: `{"tools": "read,r*,read"}`, want: "read"},
		{name: "in the order given", project: `{"tools": "ls,read"}`, want: "ls,read"},
		{name: "a list's entries trimmed", project: `{"tools": [" read "]}`, want: "read"},
		{name: "changes to the default", project: `{"tools": "+grep,-write,+read,-find"}`, want: "read,edit,bash,grep"},
		{name: "changes to the home file's", home: `{"tools": ["read", "ls"]}`, project: `{"tools": "+grep"}`, want: "read,ls,grep"},
		{name: "the variable's changes last", home: `{"tools": "+grep"}`, project: `{"tools": ["-bash"]}`, env: "-read", want: "write,edit,grep"},
		{name: "a replacement makes the values before it moot", home: `{"tools": "teleport"}`, project: `{"tools": "+teleport"}`, env: "ls", want: "ls"},
		{name: "null is the default again", home: `{"tools": "ls"}`, project: `{"tools": null}`, want: "read,write,edit,bash"},
		{name: "changes after null", home: `{"tools": "ls"}`, project: `{"tools": null}`, env: "+ls", want: "read,write,edit,bash,ls"},
		{name: "the variable replaces", project: `{"tools": "ls"}`, env: "grep,find", want: "grep,find"},
		{name: "excluded by name and pattern", exclude: []string{"read", "*it*", "zz*", "mcp__x__*"}, want: "bash"},
		{name: "the task tool excluded", project: `{"tools": "*"}`, exclude: []string{"task"}, want: "read,write,edit,bash,grep,find,ls"},
		{name: "MCP entries are left to MCPSelector", project: `{"tools": "read,mcp__fs__*,mcp__gh__issue"}`, want: "read"},
		{name: "MCP changes too", project: `{"tools": "+mcp__fs__x"}`, want: "read,write,edit,bash"},
	} {
		got, err := selection(t, c.home, c.project, c.env, c.exclude...)
		if err != nil || got != c.want {
			t.Errorf("%s: %q %v, want %q", c.name, got, err, c.want)
		}
	}
}

// A name that is no tool, a pattern that matches none, a +pattern and a
// list mixing both kinds of entry are refused naming where they came
// from.
func TestToolSelectionRefusals(t *testing.T) {
	for _, c := range []struct {
		name, home, project, env string
		exclude                  []string
		want                     string
	}{
		{name: "unknown", project: `{"tools": ["read", "teleport"]}`,
			want: `"tools" in PROJECT: unknown tool "teleport": choose from ` + allTools + `, or declare it under "customTools" in settings`},
		{name: "unknown +name", home: `{"tools": "+teleport"}`,
			want: `"tools" in HOME: unknown tool "teleport": choose from ` + allTools + `, or declare it under "customTools" in settings`},
		{name: "unknown -name in the home file before changes", home: `{"tools": "-teleport"}`, project: `{"tools": "+ls"}`,
			want: `"tools" in HOME: unknown tool "teleport": choose from ` + allTools + `, or declare it under "customTools" in settings`},
		{name: "pattern matching none", env: "zz*",
			want: `GOPI_TOOLS: the pattern "zz*" matches no tool: choose from ` + allTools},
		{name: "mixed", project: `{"tools": "read,+grep"}`,
			want: `"tools" in PROJECT: tool names cannot be mixed with +name or -name entries: give the whole list (read,bash), or only changes to the default one (+grep,-write)`},
		{name: "a +pattern", project: `{"tools": "+g*"}`,
			want: `"tools" in PROJECT: +name and -name entries take exact tool names, not patterns: +g* (use --exclude-tools for patterns)`},
		{name: "excluding no tool", exclude: []string{"teleport"},
			want: `--exclude-tools: unknown tool "teleport": choose from ` + allTools + `, or declare it under "customTools" in settings`},
	} {
		p := newPlace(t, c.home, c.project)
		if c.env != "" {
			p.env = map[string]string{"GOPI_TOOLS": c.env}
		}
		_, err := p.load(t, runFlags(), false).Tools(false, c.exclude)
		usage(t, c.name, err, strings.NewReplacer("PROJECT", p.projectFile, "HOME", p.homeFile).Replace(c.want))
	}
}

// --no-tools offers none, whatever the settings say, wrong or not.
func TestNoTools(t *testing.T) {
	p := newPlace(t, "", `{"tools": "teleport"}`)
	got, err := p.load(t, runFlags(), false).Tools(true, []string{"teleport"})
	if got != nil || err != nil {
		t.Errorf("--no-tools: %q %v", got, err)
	}
}

// --tools given replaces the selection, with its own name in messages;
// its default (not given) is not a selection.
func TestToolsFlag(t *testing.T) {
	p := newPlace(t, "", `{"tools": "ls"}`)
	got, err := p.load(t, runFlags("tools=[+grep]"), false).Tools(false, nil)
	if err != nil || strings.Join(got, ",") != "ls,grep" {
		t.Errorf("--tools +grep over ls: %q %v", got, err)
	}
	got, err = p.load(t, runFlags(), false).Tools(false, nil)
	if err != nil || strings.Join(got, ",") != "ls" {
		t.Errorf("--tools not given: %q %v", got, err)
	}
	_, err = p.load(t, runFlags("tools=[zz*]"), false).Tools(false, nil)
	usage(t, "--tools zz*", err, `--tools: the pattern "zz*" matches no tool: choose from `+allTools)
}

func TestMatchTool(t *testing.T) {
	for _, c := range []struct {
		pattern, name string
		want          bool
	}{
		{"bash", "bash", true}, {"bas", "bash", false}, {"bash", "ba", false},
		{"*", "bash", true}, {"b*", "bash", true}, {"*h", "bash", true}, {"b*h", "bash", true},
		{"a*", "bash", false}, {"*s", "bash", false}, {"r.ad*", "read", false}, {"mcp__*", "mcp__fs__read", true},
	} {
		if got := MatchTool(c.pattern, c.name); got != c.want {
			t.Errorf("MatchTool(%q, %q) = %v", c.pattern, c.name, got)
		}
	}
	for _, c := range []struct {
		e    string
		want bool
	}{{"mcp__fs__x", true}, {"+mcp__fs", true}, {"-mcp__*", true}, {"read", false}, {"x_mcp__", false}} {
		if IsMCPEntry(c.e) != c.want {
			t.Errorf("IsMCPEntry(%q) = %v", c.e, !c.want)
		}
	}
}

// MCP tools are offered unless a replacing "tools" value names MCP
// tools and not them, a -name removes them, or --exclude-tools does.
func TestMCPSelector(t *testing.T) {
	for _, c := range []struct {
		name, home, project, env string
		exclude                  []string
		want                     string // of mcp__fs__read, mcp__fs__write, mcp__gh__issue
	}{
		{name: "no tools value", want: "mcp__fs__read,mcp__fs__write,mcp__gh__issue"},
		{name: "a value naming no MCP tool", project: `{"tools": "read"}`, want: "mcp__fs__read,mcp__fs__write,mcp__gh__issue"},
		{name: "a value naming MCP tools", project: `{"tools": "read,mcp__fs__*"}`, want: "mcp__fs__read,mcp__fs__write"},
		{name: "a -name", project: `{"tools": "-mcp__fs__write"}`, want: "mcp__fs__read,mcp__gh__issue"},
		{name: "a +name after a value", home: `{"tools": "mcp__gh__issue"}`, project: `{"tools": "+mcp__fs__read"}`, want: "mcp__fs__read,mcp__gh__issue"},
		{name: "null", home: `{"tools": "mcp__gh__issue"}`, project: `{"tools": null}`, want: "mcp__fs__read,mcp__fs__write,mcp__gh__issue"},
		{name: "the variable last", project: `{"tools": "mcp__gh__issue"}`, env: "mcp__fs__read", want: "mcp__fs__read"},
		{name: "excluded", exclude: []string{"mcp__gh__*", "mcp__fs__read"}, want: "mcp__fs__write"},
	} {
		p := newPlace(t, c.home, c.project)
		if c.env != "" {
			p.env = map[string]string{"GOPI_TOOLS": c.env}
		}
		sel := p.load(t, runFlags(), false).MCPSelector(c.exclude)
		var got []string
		for _, n := range []string{"mcp__fs__read", "mcp__fs__write", "mcp__gh__issue"} {
			if sel(n) {
				got = append(got, n)
			}
		}
		if strings.Join(got, ",") != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// runTool runs a custom tool and returns its text.
func runTool(t *testing.T, tool tools.Tool, cwd string) string {
	t.Helper()
	res, err := tool.Run(context.Background(), tools.Call{Args: json.RawMessage(`{}`), Env: &tools.Env{Cwd: cwd, Environ: os.Environ(), TempDir: t.TempDir()},
		Update: func(tools.Result) {}})
	if err != nil {
		t.Fatal(err)
	}
	var text []string
	for _, c := range res.Content {
		text = append(text, c.Text)
	}
	return strings.Join(text, "")
}

// Custom tools: a nearer file's replaces a farther one's of the same
// name; a project's runs with GOPI_PROJECT_DIR, the user's without; only
// those selected are built; a wrong one is refused naming its file.
func TestCustomTools(t *testing.T) {
	p := newPlace(t, `{"customTools": [{"name": "where", "description": "home", "command": "echo home"},
		{"name": "mine", "description": "mine", "command": "echo dir=$GOPI_PROJECT_DIR", "timeout": 30}]}`,
		`{"customTools": [{"name": "where", "description": "project", "command": "echo dir=$GOPI_PROJECT_DIR"},
		{"name": "unused", "command": "true"}]}`)
	s := p.load(t, runFlags(), false)
	built, err := s.CustomTools([]string{"read", "where", "mine"})
	if err != nil {
		t.Fatal(err)
	}
	if len(built) != 2 || built[0].Spec().Name != "mine" || built[1].Spec().Name != "where" || built[1].Spec().Description != "project" {
		t.Fatalf("built %d tools: %+v", len(built), built)
	}
	if got := strings.TrimSpace(runTool(t, built[1], p.cwd)); got != "dir="+p.cwd {
		t.Errorf("the project's tool: %q", got)
	}
	// The user's tool sees no project folder (nor a 30 ns timeout).
	if got := strings.TrimSpace(runTool(t, built[0], p.cwd)); got != "dir=" {
		t.Errorf("the user's tool: %q", got)
	}
	if got, _ := s.Tools(false, nil); strings.Join(got, ",") != "read,write,edit,bash,mine,where,unused" {
		t.Errorf("offered %q", got)
	}
	if none, err := s.CustomTools([]string{"read"}); len(none) != 0 || err != nil {
		t.Errorf("none selected: %d %v", len(none), err)
	}
}

func TestCustomToolRefusals(t *testing.T) {
	for _, c := range []struct{ project, want string }{
		{`{"customTools": {"name": "t"}}`, `settings FILE: "customTools" has the wrong shape: a value is an object: give a list; give a list of {"name", "description", "parameters", "command", "timeout"}`},
		{`{"customTools": [{"name": "t", "command": "true", "timeoutMs": 5}]}`, `settings FILE: "customTools" has the wrong shape: unknown field "timeoutMs"; give a list of {"name", "description", "parameters", "command", "timeout"}`},
		{`{"customTools": [{"name": "t", "command": "true", "timeout": -1}]}`, `settings FILE: custom tool "t": timeout -1: give seconds above 0 and at most 86400`},
		{`{"customTools": [{"name": "t", "command": "true", "timeout": 86401}]}`, `settings FILE: custom tool "t": timeout 86401: give seconds above 0 and at most 86400`},
		// Past what a time.Duration holds: said as given, not wrapped round.
		{`{"customTools": [{"name": "t", "command": "true", "timeout": 1e300}]}`, `settings FILE: custom tool "t": timeout 1e+300: give seconds above 0 and at most 86400`},
		{`{"customTools": [{"name": "t", "command": " "}]}`, `settings FILE: custom tool "t": give the command it runs`},
		{`{"customTools": [{"name": "t", "command": "true", "timeout": 86400}]}`, ``},
	} {
		p := newPlace(t, "", c.project)
		s, err := p.try(runFlags(), false)
		if err == nil {
			_, err = s.Assembly(AgentOptions{Cwd: p.cwd})
		}
		if c.want == "" {
			if err != nil {
				t.Errorf("%s: %v", c.project, err)
			}
			continue
		}
		usage(t, c.project, err, strings.ReplaceAll(c.want, "FILE", p.projectFile))
	}
}

// Hooks add up across files, each running in the project folder of the
// file that declared it ("" for the user's, the working folder).
func TestHooksAddUp(t *testing.T) {
	p := newPlace(t, `{"hooks": {"beforeTool": [{"matcher": "bash", "command": "home.sh"}]}}`,
		`{"hooks": {"beforeTool": [{"command": "project.sh"}], "afterTool": [{"command": "after.sh"}]}}`)
	h := p.load(t, runFlags(), false).Hooks()
	if len(h.BeforeTool) != 2 || h.BeforeTool[0].Command != "home.sh" || h.BeforeTool[0].Dir != "" ||
		h.BeforeTool[1].Command != "project.sh" || h.BeforeTool[1].Dir != p.cwd || len(h.AfterTool) != 1 || h.AfterTool[0].Dir != p.cwd {
		t.Errorf("hooks %+v", h)
	}
	write(t, p.projectFile, `{"hooks": {"beforeTool": {"command": "x"}}}`)
	_, err := p.try(runFlags(), false)
	usage(t, "hooks object", err, `settings `+p.projectFile+`: "hooks" has the wrong shape: "beforeTool" is an object: give a list`)
	if HookDir(p.home, p.homeFile) != "" || HookDir(p.home, p.projectFile) != p.cwd {
		t.Errorf("HookDir %q %q", HookDir(p.home, p.homeFile), HookDir(p.home, p.projectFile))
	}
}
