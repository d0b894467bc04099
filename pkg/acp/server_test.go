package acp

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"gopi/pkg/ai"
	"gopi/pkg/loop"
	"gopi/pkg/runtime"
	"gopi/pkg/session"
)

// fakeSession answers a prompt by asking about one call, then waits for
// its context; what the question returned is sent on asked.
type fakeSession struct {
	mu     sync.Mutex
	ask    func(Permission) bool
	asked  chan bool
	closed bool
}

func (f *fakeSession) ID() string            { return "s1" }
func (f *fakeSession) Path() []session.Entry { return nil }
func (f *fakeSession) Prompt(ctx context.Context, msgs []ai.Message, on func(loop.Event)) (runtime.Result, error) {
	on(loop.Event{Type: loop.ToolStart, ToolCallID: "c1", ToolName: "bash", Args: json.RawMessage(`{"command":"rm x"}`)})
	f.mu.Lock()
	ask := f.ask
	f.mu.Unlock()
	f.asked <- ask(Permission{Tool: "bash", Operation: "run", Target: "rm x", Rule: "denied by rule Bash(rm *)"})
	<-ctx.Done()
	return runtime.Result{Result: loop.Result{Reason: loop.ReasonAborted}}, nil
}
func (f *fakeSession) Name() string                       { return "" }
func (f *fakeSession) Model() ai.Info                     { return ai.Info{Provider: "faux", ID: "demo"} }
func (f *fakeSession) Models() []ai.Info                  { return []ai.Info{f.Model()} }
func (f *fakeSession) SetModel(string) error              { return nil }
func (f *fakeSession) Thinking() ai.ThinkingLevel         { return ai.ThinkingOff }
func (f *fakeSession) SetThinking(ai.ThinkingLevel) error { return nil }
func (f *fakeSession) Sandbox() string                    { return "off" }
func (f *fakeSession) Sandboxes() []string                { return []string{"off"} }
func (f *fakeSession) SetSandbox(string) error            { return nil }
func (f *fakeSession) Commands() []Command                { return nil }
func (f *fakeSession) Expand(s string) (string, error)    { return s, nil }
func (f *fakeSession) SetAsk(ask func(Permission) bool) {
	f.mu.Lock()
	f.ask = ask
	f.mu.Unlock()
}
func (f *fakeSession) Close() {
	f.mu.Lock()
	f.closed = true
	f.mu.Unlock()
}

type fakeHost struct{ s *fakeSession }

func (h fakeHost) New(context.Context, string, []MCPServer) (Session, error) { return h.s, nil }
func (h fakeHost) Load(context.Context, string, string, []MCPServer) (Session, error) {
	return h.s, nil
}
func (h fakeHost) List(string) ([]Listed, error) { return nil, nil }

type conn struct {
	in    *io.PipeWriter
	lines chan string
	done  chan error
}

func serve(t *testing.T, h Host) *conn {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &conn{in: inW, lines: make(chan string, 100), done: make(chan error, 1)}
	srv := NewServer(outW, h, Options{PermissionTimeout: time.Minute})
	go func() {
		err := srv.Serve(context.Background(), inR)
		outW.Close()
		c.done <- err
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
	}()
	return c
}

func (c *conn) send(t *testing.T, s string) {
	t.Helper()
	if _, err := io.WriteString(c.in, s+"\n"); err != nil {
		t.Fatal(err)
	}
}

func (c *conn) until(t *testing.T, sub string) string {
	t.Helper()
	timer := time.NewTimer(10 * time.Second)
	defer timer.Stop()
	for {
		select {
		case l, ok := <-c.lines:
			if !ok {
				t.Fatalf("output ended before %s", sub)
			}
			if strings.Contains(l, sub) {
				return l
			}
		case <-timer.C:
			t.Fatalf("no line with %s", sub)
		}
	}
}

func start(t *testing.T, c *conn) {
	c.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`)
	c.send(t, `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/p","mcpServers":[]}}`)
	c.until(t, `"id":2,"result"`)
	c.send(t, `{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"go"}]}}`)
	c.until(t, `"method":"session/request_permission"`)
}

// A cancelled prompt ends the question it is waiting on: refused.
func TestCancelEndsThePermissionQuestion(t *testing.T) {
	f := &fakeSession{asked: make(chan bool, 1)}
	c := serve(t, fakeHost{f})
	start(t, c)
	c.send(t, `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1"}}`)
	if <-f.asked {
		t.Error("a cancelled question allowed the call")
	}
	c.until(t, `"id":3,"result":{"stopReason":"cancelled"}`)
	c.in.Close()
	if err := <-c.done; err != nil {
		t.Fatal(err)
	}
}

// A client that goes away while asked: the rule decides, Serve returns
// and the session is closed.
func TestGoneClientLeavesItToTheRule(t *testing.T) {
	f := &fakeSession{asked: make(chan bool, 1)}
	c := serve(t, fakeHost{f})
	start(t, c)
	c.in.Close()
	if <-f.asked {
		t.Error("a question nobody answered allowed the call")
	}
	if err := <-c.done; err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.closed {
		t.Error("the session was not closed")
	}
}

// allow-always answers the same call again without asking.
func TestAlwaysIsRemembered(t *testing.T) {
	f := &fakeSession{asked: make(chan bool, 2)}
	c := serve(t, fakeHost{f})
	start(t, c)
	c.send(t, `{"jsonrpc":"2.0","id":0,"result":{"outcome":{"outcome":"selected","optionId":"allow-always"}}}`)
	if !<-f.asked {
		t.Fatal("allow-always refused the call")
	}
	c.send(t, `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1"}}`)
	c.until(t, `"id":3,"result"`)
	c.send(t, `{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"again"}]}}`)
	if !<-f.asked {
		t.Fatal("the remembered answer was not used")
	}
	c.send(t, `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1"}}`)
	c.until(t, `"id":4,"result"`)
	c.in.Close()
	for l := range c.lines {
		if strings.Contains(l, "request_permission") {
			t.Errorf("asked again: %s", l)
		}
	}
	<-c.done
}

// A line over the limit is answered with an error and skipped; the next
// is served.
func TestLongLineSkipped(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	srv := NewServer(outW, fakeHost{&fakeSession{}}, Options{MaxLine: 1 << 20})
	done := make(chan error, 1)
	go func() { done <- srv.Serve(context.Background(), inR); outW.Close() }()
	go func() {
		_, _ = io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"x":"`+strings.Repeat("a", 3<<20)+`"}}`+"\n")
		_, _ = io.WriteString(inW, `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":1}}`+"\n")
		inW.Close()
	}()
	out, _ := io.ReadAll(outR)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	got := string(out)
	if !strings.Contains(got, `"message":"a message longer than 1 MiB was skipped: send smaller messages"`) || !strings.Contains(got, `"id":2,"result"`) || strings.Contains(got, `"id":1,"result"`) {
		t.Errorf("output:\n%s", got)
	}
}
