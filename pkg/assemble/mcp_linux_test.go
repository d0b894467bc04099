package assemble_test

import (
	"bytes"
	"gopi/internal/fdcheck"
	"gopi/pkg/assemble"
	"gopi/pkg/mcp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// startStdio builds an Assembly with a stdio server whose process id
// and environment its first prompt reads.
func startStdio(t *testing.T, stderr *bytes.Buffer) (a *assemble.Assembly, pid int, environ string) {
	t.Helper()
	s := settings(t)
	s.Model.ID = script(t, `[{"toolCalls":[{"name":"mcp__local__pid","arguments":{}},{"name":"mcp__local__env","arguments":{}}]},{"text":"done"}]`)
	s.Model.Providers = map[string]assemble.Provider{"proxy": {API: "openai", APIKeyEnv: "PROXY_TOKEN"}}
	s.MCP = assemble.MCPSettings{Servers: []mcp.Server{stdioServer(t, "local")}}
	e := env(stderr)
	e.Environ = append(e.Environ, "ANTHROPIC_API_KEY=sk-ant-test-0123456789", "PROXY_TOKEN=px-0123456789", "PLAIN=visible")
	a, err := assemble.Build(s, e)
	if err != nil {
		t.Fatal(err)
	}
	prompt(t, a, "who are you")
	dispose(t, a)
	got := toolTexts(a)
	if len(got) != 2 {
		a.Close()
		t.Fatalf("tool results %q", got)
	}
	pid, err = strconv.Atoi(got[0])
	if err != nil || !running(pid) {
		a.Close()
		t.Fatalf("no server process: %q %v", got[0], err)
	}
	return a, pid, got[1]
}

// A stdio server runs without credentials in its environment, and Close
// ends its process.
func TestStdioMCPServerEnvironmentAndClose(t *testing.T) {
	fdcheck.Check(t)
	var stderr bytes.Buffer
	a, pid, environ := startStdio(t, &stderr)
	a.Close()
	if running(pid) {
		t.Errorf("server %d still runs after Close", pid)
	}
	if strings.Contains(environ, "sk-ant-test") || strings.Contains(environ, "px-0123456789") || !strings.Contains(environ, "PLAIN=visible") {
		t.Errorf("the server's environment:\n%s", environ)
	}
}

// Kill ends a stdio server's process before Close.
func TestKillEndsStdioMCPServer(t *testing.T) {
	fdcheck.Check(t)
	var stderr bytes.Buffer
	a, pid, _ := startStdio(t, &stderr)
	defer a.Close()
	a.Kill()
	for i := 0; i < 400 && running(pid); i++ { // bounded: SIGKILL takes effect at once
		time.Sleep(5 * time.Millisecond)
	}
	if running(pid) {
		t.Errorf("server %d still runs after Kill", pid)
	}
}
