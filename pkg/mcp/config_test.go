package mcp_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"gopi/pkg/mcp"
)

func TestConfigMerge(t *testing.T) {
	var c mcp.Config
	user := `{
	  "fs": {"command": "~/bin/fs-server", "args": ["~/notes"], "cwd": "work", "env": {"A": "1"}},
	  "docs": {"url": "https://docs.example/mcp", "headers": {"X-Key": "${DOCS_KEY}"}, "bearerTokenEnvVar": "DOCS_TOKEN", "timeout": 5},
	  "gh": {"type": "streamable-http", "url": "http://localhost:1/mcp"}
	}`
	if err := c.Merge("user.json", json.RawMessage(user), "/home/me/.gopi", "/home/me"); err != nil {
		t.Fatal(err)
	}
	project := `{"docs": {"enabled": false}, "gh": {"required": true}, "fs": {"command": "fs2"}}`
	if err := c.Merge("project.json", json.RawMessage(project), "/src/p", "/home/me"); err != nil {
		t.Fatal(err)
	}
	byName := map[string]mcp.Server{}
	for _, s := range c.Servers {
		byName[s.Name] = s
	}
	if fs := byName["fs"]; fs.Command != "fs2" || fs.Source != "project.json" || fs.Args != nil {
		t.Errorf("a full entry replaces the earlier one: %+v", fs)
	}
	docs := byName["docs"]
	if !docs.Disabled || docs.URL != "https://docs.example/mcp" || docs.CallTimeout != 5*time.Second || docs.Transport() != "http" {
		t.Errorf("an override entry changes only the switches: %+v", docs)
	}
	if got := strings.Join(docs.SecretNames(), ","); got != "DOCS_TOKEN,DOCS_KEY" {
		t.Errorf("secret names %q", got)
	}
	if gh := byName["gh"]; !gh.Required || gh.Transport() != "http" {
		t.Errorf("gh: %+v", gh)
	}

	var c2 mcp.Config
	if err := c2.Merge("u.json", json.RawMessage(`{"fs": {"command": "~/bin/fs", "args": ["~/notes", "x"], "cwd": "work"}}`), "/cfg", "/home/me"); err != nil {
		t.Fatal(err)
	}
	if s := c2.Servers[0]; s.Command != "/home/me/bin/fs" || s.Args[0] != "/home/me/notes" || s.Cwd != "/cfg/work" {
		t.Errorf("~/ and cwd: %+v", s)
	}
}

func TestConfigRefusals(t *testing.T) {
	for _, tc := range []struct{ raw, want string }{
		{`{"web": {"type": "sse", "url": "http://x/sse"}}`, `f.json: MCP server "web": the SSE transport is not supported`},
		{`{"web": {"type": "websocket", "url": "ws://x"}}`, `type "websocket": use "stdio" or "http"`},
		{`{"a b": {"command": "x"}}`, `MCP server name "a b": use 1 to 64 letters, digits, _ or -`},
		{`{"my-srv": {"command": "x"}, "my_srv": {"command": "y"}}`, `MCP servers "my-srv" and "my_srv" differ only in - and _`},
		{`{"lonely": {"enabled": true}}`, `MCP server "lonely": give "command"`},
		{`{"x": {"command": "a", "url": "http://b"}}`, `an HTTP server takes "url"`},
		{`{"x": {"url": "ftp://b"}}`, `give "url", the server's http:// or https:// address`},
		{`{"x": {"command": "a", "timeout": -1}}`, `timeout: -1: give seconds above 0`},
		{`{"x": {"command": "a", "env": {"T": "!gh auth token"}}}`, `env T: values made by running a command`},
		{`{"x": {"command": 7}}`, `MCP server "x" has the wrong shape`},
		{`["x"]`, `"mcpServers" must be an object of named servers`},
	} {
		var c mcp.Config
		err := c.Merge("f.json", json.RawMessage(tc.raw), "/d", "/h")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.raw, err, tc.want)
		}
	}
}

// Credentials in a server's URL never show: Target and Redact once gave
// the URL as written.
func TestURLCredentialsRedacted(t *testing.T) {
	for _, tc := range []struct {
		url, target string
		secrets     []string
	}{
		{"https://ghp_tok3n@mcp.example/x", "https://***@mcp.example/x", []string{"ghp_tok3n"}},
		{"https://u:p4ssword@mcp.example/x?q=1", "https://***@mcp.example/x?q=1", []string{"p4ssword"}},
		{"https://mcp.example/x?access_token=a%2Bbcd&limit=5&X-Amz-Signature=f00d", "https://mcp.example/x?access_token=***&limit=5&X-Amz-Signature=***", []string{"a%2Bbcd", "a+bcd", "f00d"}},
		{"https://mcp.example/x?apiKey=zz-top&sessionId=s-42", "https://mcp.example/x?apiKey=***&sessionId=***", []string{"zz-top", "s-42"}},
	} {
		s := mcp.Server{Name: "w", URL: tc.url}
		if got := s.Target(); got != tc.target {
			t.Errorf("Target of %s = %s, want %s", tc.url, got, tc.target)
		}
		msg := s.Redact(`Post "` + tc.url + `": refused; ` + strings.Join(tc.secrets, " "))
		for _, secret := range tc.secrets {
			if strings.Contains(msg, secret) {
				t.Errorf("Redact left %s in %q", secret, msg)
			}
		}
	}
}
