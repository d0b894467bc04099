package assemble_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"gopi/internal/fdcheck"
	"gopi/pkg/ai"
	"gopi/pkg/assemble"
	"gopi/pkg/mcp"
)

// mcpServer is a streamable HTTP MCP server on loopback with the tools
// echo {text}, version (the client's version as it said it), wait
// (answers when the call is cancelled) and loop (a schema that refers to
// itself, never offered). It counts the sessions clients open and the
// requests that end one, and answers only requests whose X-Team is
// "blue".
type mcpServer struct {
	URL string
	mu  sync.Mutex
	// initialized and ended count initialize requests and DELETEs.
	initialized, ended int
}

func newMCPServer(t *testing.T) *mcpServer {
	t.Helper()
	srv := sdk.NewServer(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	text := func(s string) *sdk.CallToolResult {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
	}
	type textIn struct {
		Text string `json:"text"`
	}
	sdk.AddTool(srv, &sdk.Tool{Name: "echo", Description: "Echo the text"}, func(_ context.Context, _ *sdk.CallToolRequest, in textIn) (*sdk.CallToolResult, any, error) {
		return text("echo: " + in.Text), nil, nil
	})
	obj := map[string]any{"type": "object"}
	srv.AddTool(&sdk.Tool{Name: "version", Description: "The client's version", InputSchema: obj}, func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return text("client " + req.Session.InitializeParams().ClientInfo.Version), nil
	})
	srv.AddTool(&sdk.Tool{Name: "wait", Description: "Never answers", InputSchema: obj}, func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		<-ctx.Done()
		return text("cancelled"), nil
	})
	srv.AddTool(&sdk.Tool{Name: "loop", InputSchema: map[string]any{"type": "object", "$ref": "#/$defs/a",
		"$defs": map[string]any{"a": map[string]any{"allOf": []any{map[string]any{"$ref": "#/$defs/a"}}}}}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) { return text("ran"), nil })
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	m := &mcpServer{}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Team") != "blue" {
			http.Error(w, "who are you?", http.StatusUnauthorized)
			return
		}
		body, _ := io.ReadAll(r.Body)
		m.mu.Lock()
		if strings.Contains(string(body), `"method":"initialize"`) {
			m.initialized++
		}
		if r.Method == http.MethodDelete {
			m.ended++
		}
		m.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	m.URL = ts.URL
	return m
}

func (m *mcpServer) counts() (initialized, ended int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.initialized, m.ended
}

func (m *mcpServer) server(name string) mcp.Server {
	return mcp.Server{Name: name, URL: m.URL, Headers: map[string]string{"X-Team": "${TEAM}"}, Source: "mcp.json"}
}

// mcpEnv is the environment the servers' headers are expanded from.
func mcpEnv(stderr *bytes.Buffer) assemble.Env {
	e := env(stderr)
	e.Environ = append(e.Environ, "TEAM=red", "TEAM=blue") // the last setting wins
	e.Version = "7.7.7"
	return e
}

// The servers start once, with the first Runtime, their headers
// expanded from Env and told Env.Version; their tools are offered to
// every Runtime, and Close ends them.
func TestMCPServersStartOnceAndEndWithClose(t *testing.T) {
	fdcheck.Check(t)
	srv := newMCPServer(t)
	var stderr bytes.Buffer
	s := settings(t)
	s.Model.ID = script(t, `[{"toolCalls":[{"name":"mcp__docs__echo","arguments":{"text":"hi"}}]},{"text":"done"},
		{"toolCalls":[{"name":"mcp__docs__version","arguments":{}}]},{"text":"done"}]`)
	s.MCP = assemble.MCPSettings{Servers: []mcp.Server{srv.server("docs")}}
	a, err := assemble.Build(s, mcpEnv(&stderr))
	if err != nil {
		t.Fatal(err)
	}
	leaf := prompt(t, a, "echo")
	for range 2 {
		if _, err := a.Reopen(assemble.Want{Leaf: leaf}); err != nil {
			a.Close()
			t.Fatal(err)
		}
	}
	prompt(t, a, "version")
	dispose(t, a)
	if got := toolTexts(a); len(got) != 2 || got[0] != "echo: hi" || got[1] != "client 7.7.7" {
		t.Errorf("tool results %q", got)
	}
	if !strings.Contains(stderr.String(), `MCP server docs: its tool "loop" is not offered`) {
		t.Errorf("the tool not offered is not said: %s", stderr.String())
	}
	a.Close()
	if in, ended := srv.counts(); in != 1 || ended != 1 {
		t.Errorf("%d sessions started, %d ended; want 1 and 1", in, ended)
	}
}

// Select decides which tools are offered; the timeouts given apply to
// the servers that set none.
func TestMCPSelectAndCallTimeout(t *testing.T) {
	fdcheck.Check(t)
	srv := newMCPServer(t)
	var stderr bytes.Buffer
	s := settings(t)
	s.Model.ID = script(t, `[{"toolCalls":[{"name":"mcp__docs__echo","arguments":{"text":"hi"}}, {"name":"mcp__docs__wait","arguments":{}}]},{"text":"done"}]`)
	s.MCP = assemble.MCPSettings{Servers: []mcp.Server{srv.server("docs")}, CallTimeout: 100 * time.Millisecond,
		Select: func(name string) bool { return name != "mcp__docs__echo" }}
	a, err := assemble.Build(s, mcpEnv(&stderr))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	prompt(t, a, "call")
	dispose(t, a)
	got := toolTexts(a)
	if len(got) != 2 || strings.Contains(got[0], "echo: hi") || !strings.Contains(got[1], "timed out after 100ms") {
		t.Errorf("tool results %q", got)
	}
}

// A server that does not start is said on stderr and the run goes on,
// unless it is required: then the Assembly is refused (ai.ClassRequired)
// before any request.
func TestMCPServerThatDoesNotStart(t *testing.T) {
	fdcheck.Check(t)
	srv := newMCPServer(t)
	s := settings(t)
	bad := srv.server("docs")
	bad.Headers = nil // refused by the server
	s.MCP = assemble.MCPSettings{Servers: []mcp.Server{bad}}

	var stderr bytes.Buffer
	a, err := assemble.Build(s, mcpEnv(&stderr))
	if err != nil {
		t.Fatal(err)
	}
	dispose(t, a)
	a.Close()
	if !strings.Contains(stderr.String(), "gopi: warning: MCP server docs") || !strings.Contains(stderr.String(), "the run goes on without its tools") {
		t.Errorf("stderr: %s", stderr.String())
	}

	s.MCP.Servers[0].Required = true
	stderr.Reset()
	a, err = assemble.Build(s, mcpEnv(&stderr))
	if classOf(err) != ai.ClassRequired || !strings.Contains(err.Error(), `it is required ("required": true in mcp.json)`) {
		if a != nil {
			a.Close()
		}
		t.Fatalf("a required server that does not start: %v", err)
	}
	if strings.Contains(stderr.String(), "goes on") {
		t.Errorf("stderr: %s", stderr.String())
	}
}

// Env.Context's end stops the servers starting; a server that never
// answers fails at StartTimeout.
func TestMCPStartStoppedOrTimedOut(t *testing.T) {
	fdcheck.Check(t)
	srv := newMCPServer(t)
	s := settings(t)
	good := srv.server("docs")
	good.Required = true
	s.MCP = assemble.MCPSettings{Servers: []mcp.Server{good}}
	var stderr bytes.Buffer
	e := mcpEnv(&stderr)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	e.Context = ctx
	if a, err := assemble.Build(s, e); classOf(err) != ai.ClassRequired {
		if a != nil {
			dispose(t, a)
			a.Close()
		}
		t.Fatalf("a start after the context's end: %v", err)
	}

	mute := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		<-r.Context().Done()
	}))
	defer mute.Close()
	s.MCP = assemble.MCPSettings{Servers: []mcp.Server{{Name: "mute", URL: mute.URL}}, StartTimeout: 100 * time.Millisecond}
	stderr.Reset()
	a, err := assemble.Build(s, env(&stderr))
	if err != nil {
		t.Fatal(err)
	}
	dispose(t, a)
	a.Close()
	if !strings.Contains(stderr.String(), "start timeout of 100ms") {
		t.Errorf("stderr: %s", stderr.String())
	}
}

// Kill ends the servers at once; Close after it releases the rest.
func TestKillEndsMCPServers(t *testing.T) {
	fdcheck.Check(t)
	srv := newMCPServer(t)
	var stderr bytes.Buffer
	s := settings(t)
	s.MCP = assemble.MCPSettings{Servers: []mcp.Server{srv.server("docs")}}
	a, err := assemble.Build(s, mcpEnv(&stderr))
	if err != nil {
		t.Fatal(err)
	}
	dispose(t, a)
	a.Kill()
	a.Close()
	if in, _ := srv.counts(); in != 1 {
		t.Errorf("%d sessions started", in)
	}
}

// stdioMCPEnv, set, makes the test binary a stdio MCP server with the
// tools pid (its process id) and env (its environment, a variable a
// line).
const stdioMCPEnv = "GOPI_ASSEMBLE_TEST_MCP"

func serveStdioMCP() {
	srv := sdk.NewServer(&sdk.Implementation{Name: "stdio-test", Version: "1"}, nil)
	obj := map[string]any{"type": "object"}
	text := func(s string) *sdk.CallToolResult {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
	}
	srv.AddTool(&sdk.Tool{Name: "pid", InputSchema: obj}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return text(strconv.Itoa(os.Getpid())), nil
	})
	srv.AddTool(&sdk.Tool{Name: "env", InputSchema: obj}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return text(strings.Join(os.Environ(), "\n")), nil
	})
	_ = srv.Run(context.Background(), &sdk.StdioTransport{})
	os.Exit(0)
}

// stdioServer runs this test binary as a stdio MCP server.
func stdioServer(t *testing.T, name string) mcp.Server {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return mcp.Server{Name: name, Command: exe, Env: map[string]string{stdioMCPEnv: "1"}}
}
