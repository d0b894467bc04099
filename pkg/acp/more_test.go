package acp

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/loop"
	"gopi/pkg/mcp"
	"gopi/pkg/runtime"
	"gopi/pkg/session"
)

// serversHost records the MCP servers each session was opened with.
type serversHost struct {
	scriptedHost
	mu  sync.Mutex
	got [][]MCPServer
}

func (h *serversHost) New(ctx context.Context, cwd string, servers []MCPServer) (Session, error) {
	h.mu.Lock()
	h.got = append(h.got, servers)
	h.mu.Unlock()
	return h.s, nil
}

// The client's MCP servers reach the host as it gave them: a command
// with its arguments and environment, a URL with its headers.
func TestServeClientMCPServers(t *testing.T) {
	h := &serversHost{scriptedHost: scriptedHost{&scriptedSession{}}}
	c := dial(t, h, Options{})
	c.send(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/p","mcpServers":[` +
		`{"name":"docs","command":"docs-server","args":["--stdio"],"env":[{"name":"TOKEN","value":"t"},{"name":"MODE","value":"m"}]},` +
		`{"type":"http","name":"web","url":"https://mcp.example/x","headers":[{"name":"Authorization","value":"Bearer k"},{"name":"X-A","value":"b"}]},` +
		`{"type":"stdio","name":"bare","command":"bare"}]}}`)
	c.until(`"id":1,`)
	c.close()
	want := []MCPServer{
		{Name: "docs", Command: "docs-server", Args: []string{"--stdio"}, Env: map[string]string{"TOKEN": "t", "MODE": "m"}},
		{Name: "web", URL: "https://mcp.example/x", Headers: map[string]string{"Authorization": "Bearer k", "X-A": "b"}},
		{Name: "bare", Command: "bare"},
	}
	if len(h.got) != 1 || sprintf("%+v", h.got[0]) != sprintf("%+v", want) {
		t.Fatalf("servers %+v, want %+v", h.got, want)
	}
	got := Opening{Cwd: "/p", Servers: want[:2]}.MCP()
	wantMCP := []mcp.Server{
		{Name: "docs", Command: "docs-server", Args: []string{"--stdio"}, Env: map[string]string{"TOKEN": "t", "MODE": "m"}, Cwd: "/p", Source: "the editor's session"},
		{Name: "web", URL: "https://mcp.example/x", Headers: map[string]string{"Authorization": "Bearer k", "X-A": "b"}, Cwd: "/p", Source: "the editor's session"},
	}
	if sprintf("%+v", got) != sprintf("%+v", wantMCP) {
		t.Fatalf("MCP() %+v, want %+v", got, wantMCP)
	}
}

// Loading a session replays its path: the user's text, the answer's
// text and thinking (not a redacted one), its calls pending, their
// results completed or failed.
func TestServeLoadReplays(t *testing.T) {
	msg := func(m ai.Message) session.Entry { return session.Entry{Type: session.TypeMessage, Message: &m} }
	s := &scriptedSession{path: []session.Entry{
		{Type: session.TypeModelChange, Provider: "faux", ModelID: "demo"},
		msg(ai.Message{Role: ai.RoleUser, Content: []ai.Content{ai.TextContent("look"), ai.ImageContent("AAAA", "image/png")}}),
		msg(ai.Message{Role: ai.RoleAssistant, Content: []ai.Content{
			{Type: ai.TypeThinking, Thinking: "secret", Redacted: true},
			{Type: ai.TypeThinking, Thinking: "let me see"},
			ai.TextContent("looking"),
			{Type: ai.TypeToolCall, ID: "c1", Name: "read", Arguments: []byte(`{"path":"a.txt"}`)},
			{Type: ai.TypeToolCall, ID: "c2", Name: "bash"},
		}}),
		msg(ai.Message{Role: ai.RoleToolResult, ToolCallID: "c1", Content: []ai.Content{ai.TextContent("text of a")}}),
		msg(ai.Message{Role: ai.RoleToolResult, ToolCallID: "c2", IsError: true, Content: []ai.Content{ai.TextContent("no command")}}),
		{Type: session.TypeMessage},
		msg(ai.Message{Role: "bashExecution"}),
	}}
	c := dial(t, scriptedHost{s}, Options{})
	upd := func(u string) string {
		return `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":` + u + `}}`
	}
	c.exchange([]step{one(`{"jsonrpc":"2.0","id":1,"method":"session/load","params":{"sessionId":"s1","cwd":"/p","mcpServers":[]}}`,
		upd(`{"content":{"text":"look","type":"text"},"sessionUpdate":"user_message_chunk"}`),
		upd(`{"content":{"text":"let me see","type":"text"},"sessionUpdate":"agent_thought_chunk"}`),
		upd(`{"content":{"text":"looking","type":"text"},"sessionUpdate":"agent_message_chunk"}`),
		upd(`{"kind":"read","locations":[{"path":"/p/a.txt"}],"rawInput":{"path":"a.txt"},"sessionUpdate":"tool_call","status":"pending","title":"Read a.txt","toolCallId":"c1"}`),
		upd(`{"kind":"execute","rawInput":{},"sessionUpdate":"tool_call","status":"pending","title":"","toolCallId":"c2"}`),
		upd(`{"content":[{"content":{"text":"text of a","type":"text"},"type":"content"}],"sessionUpdate":"tool_call_update","status":"completed","toolCallId":"c1"}`),
		upd(`{"content":[{"content":{"text":"no command","type":"text"},"type":"content"}],"sessionUpdate":"tool_call_update","status":"failed","toolCallId":"c2"}`),
		upd(`{"availableCommands":[{"description":"fix it","input":{"hint":"arguments"},"name":"fix"}],"sessionUpdate":"available_commands_update"}`),
	)})
	if l := c.next(); !strings.HasPrefix(l, `{"jsonrpc":"2.0","id":1,"result":{"configOptions":`) {
		t.Fatalf("session/load answered %s", l)
	}
	c.close()
}

// Lines that are not requests: a one-character line and params of the
// wrong shape are answered as errors; the connection goes on.
func TestServeMalformedParams(t *testing.T) {
	c := dial(t, scriptedHost{&scriptedSession{}}, Options{})
	c.exchange([]step{
		one(`x`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"the line is not a JSON-RPC message (invalid JSON at byte 1): send one JSON object per line"}}`),
		one(`{"jsonrpc":"2.0","id":"a","method":"session/list","params":{"cwd":5}}`, `{"jsonrpc":"2.0","id":"a","error":{"code":-32602,"message":"session/list: params are wrong (\"cwd\" has the wrong type)"}}`),
		one(`{"jsonrpc":"2.0","id":2,"method":"session/close","params":{"sessionId":5}}`, errLine(2, -32602, `session/close: params are wrong ("sessionId" has the wrong type)`)),
		one(`{"jsonrpc":"2.0","id":3,"method":"session/close","params":{}}`, errLine(3, -32602, `"sessionId" is missing: give the id session/new answered`)),
		one(`{"jsonrpc":"2.0","id":4,"method":"session/set_mode","params":{"sessionId":true}}`, errLine(4, -32602, `session/set_mode: params are wrong ("sessionId" has the wrong type)`)),
		one(`{"jsonrpc":"2.0","id":5,"method":"session/prompt","params":{"sessionId":"s1","prompt":"go"}}`, errLine(5, -32602, `session/prompt: params are wrong ("prompt" has the wrong type)`)),
		one(`{"jsonrpc":"2.0","id":6,"method":"session/new","params":{"cwd":"/p","mcpServers":{}}}`, errLine(6, -32602, `session/new: params are wrong ("mcpServers" has the wrong type)`)),
		one(`{"jsonrpc":"2.0","id":7,"method":"session/load","params":{"sessionId":"s1","cwd":"p"}}`, errLine(7, -32602, `"cwd" "p" is not an absolute path: give the project's folder as one`)),
		one(`{"jsonrpc":"2.0","id":8,"method":"session/load","params":{"sessionId":"s1","cwd":"/p","mcpServers":[{"name":""}]}}`, errLine(8, -32602, `mcpServers[0]: "name" is missing`)),
	})
	c.close()
}

// failingWriter fails every write after the first n.
type failingWriter struct {
	mu    sync.Mutex
	n     int
	calls int
}

func (w *failingWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.calls++
	if w.n == 0 {
		return 0, errors.New("stdout closed")
	}
	w.n--
	return len(p), nil
}

// A write that fails is Serve's error; nothing is written after it.
func TestServeWriteFails(t *testing.T) {
	w := &failingWriter{n: 1}
	srv := NewServer(w, scriptedHost{&scriptedSession{}}, Options{})
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":1}}` + "\n" +
		`{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":1}}` + "\n")
	if err := srv.Serve(context.Background(), in); err == nil || err.Error() != "stdout closed" {
		t.Fatalf("Serve: %v", err)
	}
	if w.calls != 2 {
		t.Fatalf("%d writes, want the first and the one that failed", w.calls)
	}
}

// A prompt still being read when the connection ends is answered
// cancelled and never started, as the prompt going on is.
func TestServePromptDuringShutdown(t *testing.T) {
	started, shut := make(chan struct{}), make(chan struct{})
	s := &scriptedSession{}
	s.turns = []turnFunc{
		func(ctx context.Context, _ func(loop.Event)) (runtime.Result, error) {
			close(started)
			<-ctx.Done() // the connection ended: Serve cancels the prompts
			close(shut)
			return runtime.Result{Result: loop.Result{Reason: loop.ReasonAborted}}, nil
		},
		ended(loop.ReasonStop, nil),
	}
	s.expand = func(text string) (string, error) {
		<-shut
		return text, nil
	}
	c := dial(t, scriptedHost{s}, Options{})
	c.send(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/p","mcpServers":[]}}`)
	c.until(`"id":1,`)
	c.send(`{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"go"}]}}`)
	<-started
	c.send(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"/later"}]}}`)
	rest := c.close()
	slices.Sort(rest)
	want := []string{`{"jsonrpc":"2.0","id":2,"result":{"stopReason":"cancelled"}}`, `{"jsonrpc":"2.0","id":3,"result":{"stopReason":"cancelled"}}`}
	if strings.Join(rest, "\n") != strings.Join(want, "\n") {
		t.Fatalf("lines at the end\n%s\nwant\n%s", strings.Join(rest, "\n"), strings.Join(want, "\n"))
	}
	if len(s.messages()) != 1 {
		t.Fatalf("prompts started: %+v", s.messages())
	}
}
