package settings

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"gopi/pkg/mcp"
)

// servers are the MCP servers' names and commands, "name=command".
func servers(list []mcp.Server) string {
	var out []string
	for _, s := range list {
		out = append(out, s.Name+"="+s.Command)
	}
	return strings.Join(out, ",")
}

// The servers merge in order: each settings folder's settings.json and
// then its mcp.json, the user's before the project's, then each
// --mcp-config; a later server replaces an earlier one of its name in
// place, and the front door's come last.
func TestMCPMergeOrder(t *testing.T) {
	p := newPlace(t, `{"mcpServers": {"a": {"command": "home-a"}, "b": {"command": "home-b"}, "c": {"command": "home-c"}, "d": {"command": "home-d"}}}`,
		`{"mcpServers": {"b": {"command": "project-b"}}}`)
	write(t, filepath.Join(p.home, "mcp.json"), `{"mcpServers": {"a": {"command": "homemcp-a"}, "e": {"command": "homemcp-e"}}}`)
	write(t, filepath.Join(p.cwd, ".gopi", "mcp.json"), `{"mcpServers": {"c": {"command": "projectmcp-c"}}}`)
	write(t, filepath.Join(p.cwd, "extra.json"), `{"mcpServers": {"d": {"command": "extra-d"}}}`)
	abs := filepath.Join(t.TempDir(), "abs.json")
	write(t, abs, `{"mcpServers": {"e": {"command": "abs-e"}}}`)
	set, err := p.load(t, runFlags(), false).Context(AgentOptions{Cwd: p.cwd, MCPConfigs: []string{"extra.json", abs},
		MoreMCP: []mcp.Server{{Name: "client", Command: "client"}}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := servers(set.MCP.Servers), "a=homemcp-a,b=project-b,c=projectmcp-c,d=extra-d,e=abs-e,client=client"; got != want {
		t.Errorf("servers %s, want %s", got, want)
	}
	// Bare reads no settings folder, only the files named.
	set, err = p.load(t, runFlags(), true).Context(AgentOptions{Cwd: p.cwd, Bare: true, MCPConfigs: []string{"extra.json"}})
	if err != nil || servers(set.MCP.Servers) != "d=extra-d" {
		t.Errorf("bare: %s %v", servers(set.MCP.Servers), err)
	}
	// --no-mcp and --no-tools start none, and read nothing that could be wrong.
	write(t, p.projectFile, `{"mcp": {"timeout": -1}, "mcpServers": {"bad name": {}}}`)
	for _, o := range []AgentOptions{{Cwd: p.cwd, NoMCP: true, MCPConfigs: []string{"missing.json"}}, {Cwd: p.cwd, NoTools: true}} {
		set, err = p.load(t, runFlags(), false).Context(o)
		if err != nil || len(set.MCP.Servers) != 0 {
			t.Errorf("none: %s %v", servers(set.MCP.Servers), err)
		}
	}
}

// A server's relative cwd is its project folder's (the working folder
// for the user's), a --mcp-config's folder for its servers; ~/ is $HOME.
func TestMCPServerFolders(t *testing.T) {
	p := newPlace(t, `{"mcpServers": {"user": {"command": "~/bin/srv", "cwd": "sub"}}}`, `{"mcpServers": {"proj": {"command": "srv", "cwd": "sub"}}}`)
	write(t, filepath.Join(p.cwd, "cfg", "more.json"), `{"mcpServers": {"named": {"command": "srv", "cwd": "sub"}}}`)
	p.env = map[string]string{"HOME": "/home/u"}
	inner := filepath.Join(p.cwd, "inner")
	if err := os.MkdirAll(filepath.Join(p.cwd, ".git"), 0o700); err != nil { // the project's root
		t.Fatal(err)
	}
	if err := os.MkdirAll(inner, 0o700); err != nil {
		t.Fatal(err)
	}
	set, err := p.load(t, runFlags(), false).Context(AgentOptions{Cwd: inner, MCPConfigs: []string{filepath.Join(p.cwd, "cfg", "more.json")}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]string{
		"user":  {"/home/u/bin/srv", filepath.Join(inner, "sub")},
		"proj":  {"srv", filepath.Join(p.cwd, "sub")},
		"named": {"srv", filepath.Join(p.cwd, "cfg", "sub")},
	}
	if len(set.MCP.Servers) != len(want) {
		t.Fatalf("servers %s", servers(set.MCP.Servers))
	}
	for _, s := range set.MCP.Servers {
		if w := want[s.Name]; s.Command != w[0] || s.Cwd != w[1] {
			t.Errorf("%s: command %q cwd %q, want %q", s.Name, s.Command, s.Cwd, w)
		}
	}
}

// "mcp" gives every server's timeouts; the servers' header tokens
// become secrets; --exclude-tools reaches the MCP tools.
func TestMCPOptionsAndSecrets(t *testing.T) {
	p := newPlace(t, `{"secrets": ["MINE"]}`, `{"mcp": {"startTimeout": 0.5, "timeout": 86400},
		"mcpServers": {"gh": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${GH_TOKEN}", "X-Other": "${OTHER:-x}"}},
		"api": {"url": "https://example.com/api", "bearerTokenEnvVar": "API_TOKEN"}}}`)
	s := p.load(t, runFlags(), false)
	set, err := s.Context(AgentOptions{Cwd: p.cwd, ExcludeTools: []string{"mcp__gh__*"}})
	if err != nil {
		t.Fatal(err)
	}
	if set.MCP.StartTimeout != 500*time.Millisecond || set.MCP.CallTimeout != 24*time.Hour {
		t.Errorf("timeouts %v %v", set.MCP.StartTimeout, set.MCP.CallTimeout)
	}
	if got := s.Secrets(); !slices.Equal(got, []string{"MINE", "API_TOKEN", "GH_TOKEN", "OTHER"}) {
		t.Errorf("secrets %q", got)
	}
	if set.MCP.Select == nil || set.MCP.Select("mcp__gh__issue") || !set.MCP.Select("mcp__api__call") {
		t.Errorf("the selector does not exclude mcp__gh__*")
	}
}

func TestMCPRefusals(t *testing.T) {
	for _, c := range []struct {
		name, project, mcpJSON string
		configs                []string
		want                   string
	}{
		{name: "negative timeout", project: `{"mcp": {"timeout": -1}}`,
			want: `"mcp" in PROJECT: "mcp".timeout -1: give seconds above 0 and at most 86400`},
		{name: "start timeout over a day", project: `{"mcp": {"startTimeout": 86401}}`,
			want: `"mcp" in PROJECT: "mcp".startTimeout 86401: give seconds above 0 and at most 86400`},
		{name: "mcp wrong shape", project: `{"mcp": {"timeout": "1m"}}`,
			want: `"mcp" in PROJECT has the wrong shape: "timeout" is a string: give a number; give {"startTimeout": SECONDS, "timeout": SECONDS}`},
		{name: "a bad server in settings", project: `{"mcpServers": {"bad name": {"command": "x"}}}`,
			want: `settings PROJECT: MCP server name "bad name": use 1 to 64 letters, digits, _ or -`},
		{name: "a bad server in mcp.json", mcpJSON: `{"mcpServers": {"s": {}}}`,
			want: `MCPJSON: MCP server "s": give "command" (a program run over stdio) or "url" (a streamable HTTP endpoint)`},
		{name: "mcp.json not JSON", mcpJSON: `{`,
			want: `MCP config MCPJSON is not valid JSON: unexpected end of JSON input; fix it, or remove it`},
		{name: "mcp.json a folder", mcpJSON: "FOLDER",
			want: `MCP config MCPJSON is a folder, not a regular file: make it a regular file of at most 1 MiB`},
		{name: "a named file missing", configs: []string{"missing.json"},
			want: `MCP config CWD/missing.json: stat CWD/missing.json: no such file or directory`},
		{name: "a named file without mcpServers", configs: []string{"empty.json"},
			want: `MCP config CWD/empty.json has no "mcpServers": give {"mcpServers": {"NAME": {"command": ..., "args": [...]}}}`},
		{name: "a bad server in a named file", configs: []string{"bad.json"},
			want: `CWD/bad.json: MCP server "s": give "command" (a program run over stdio) or "url" (a streamable HTTP endpoint)`},
	} {
		p := newPlace(t, "", c.project)
		mcpJSON := filepath.Join(p.cwd, ".gopi", "mcp.json")
		switch c.mcpJSON {
		case "":
		case "FOLDER":
			if err := os.MkdirAll(mcpJSON, 0o700); err != nil {
				t.Fatal(err)
			}
		default:
			write(t, mcpJSON, c.mcpJSON)
		}
		write(t, filepath.Join(p.cwd, "empty.json"), `{}`)
		write(t, filepath.Join(p.cwd, "bad.json"), `{"mcpServers": {"s": {}}}`)
		_, err := p.load(t, runFlags(), false).Context(AgentOptions{Cwd: p.cwd, MCPConfigs: c.configs})
		usage(t, c.name, err, strings.NewReplacer("PROJECT", p.projectFile, "MCPJSON", mcpJSON, "CWD", p.cwd).Replace(c.want))
	}
	// A settings folder's mcp.json without "mcpServers" is nothing.
	p := newPlace(t, "", "")
	write(t, filepath.Join(p.home, "mcp.json"), `{}`)
	if set, err := p.load(t, runFlags(), false).Context(AgentOptions{Cwd: p.cwd}); err != nil || len(set.MCP.Servers) != 0 {
		t.Errorf("an empty mcp.json: %v", err)
	}
}
