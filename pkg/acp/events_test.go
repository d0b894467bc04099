package acp

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/loop"
	"gopi/pkg/runtime"
	"gopi/pkg/session"
)

// turnFunc plays one prompt of a scriptedSession.
type turnFunc func(ctx context.Context, on func(loop.Event)) (runtime.Result, error)

// scriptedSession plays each prompt with the next turnFunc and keeps the
// messages it was given.
type scriptedSession struct {
	fakeSession
	mu    sync.Mutex
	turns []turnFunc
	got   []ai.Message
	name  string
	path  []session.Entry
	// expand, when set, is Expand.
	expand func(string) (string, error)
}

func (s *scriptedSession) Prompt(ctx context.Context, msgs []ai.Message, on func(loop.Event)) (runtime.Result, error) {
	s.mu.Lock()
	s.got = append(s.got, msgs...)
	f := s.turns[0]
	s.turns = s.turns[1:]
	s.mu.Unlock()
	return f(ctx, on)
}

func (s *scriptedSession) Name() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.name
}

func (s *scriptedSession) Path() []session.Entry { return s.path }

func (s *scriptedSession) Commands() []Command {
	return []Command{{Name: "fix", Description: "fix it"}}
}

func (s *scriptedSession) Expand(text string) (string, error) {
	if s.expand != nil {
		return s.expand(text)
	}
	if t := strings.TrimSpace(text); strings.HasPrefix(t, "/fix ") {
		return "fixed: " + strings.TrimPrefix(t, "/fix "), nil
	}
	return "", errors.New("unknown command " + text)
}

func (s *scriptedSession) messages() []ai.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]ai.Message(nil), s.got...)
}

type scriptedHost struct{ s *scriptedSession }

func (h scriptedHost) New(context.Context, string, []MCPServer) (Session, error) { return h.s, nil }
func (h scriptedHost) Load(context.Context, string, string, []MCPServer) (Session, error) {
	return h.s, nil
}
func (h scriptedHost) List(string) ([]Listed, error) {
	return nil, errors.New("the sessions folder cannot be read")
}

func ended(reason loop.Reason, err error) turnFunc {
	return func(context.Context, func(loop.Event)) (runtime.Result, error) {
		return runtime.Result{Result: loop.Result{Reason: reason, Err: err}}, nil
	}
}

func textResult(text string) *loop.ToolOutput {
	return &loop.ToolOutput{Content: []ai.Content{ai.TextContent(text)}}
}

// Each run's end is its stop reason as ACP names it; a run that fails is
// the prompt's error; the events of a run become chunks, thoughts, tool
// calls and their updates (an update with no output says nothing),
// usage with the cost spent on the connection so far, and the session's
// name once it changes.
func TestServeEventsAndStopReasons(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f.txt")
	s := &scriptedSession{}
	s.turns = []turnFunc{
		func(_ context.Context, on func(loop.Event)) (runtime.Result, error) {
			on(loop.Event{Type: loop.MessageUpdate})
			on(loop.Event{Type: loop.MessageUpdate, Stream: &ai.Event{Type: ai.EventThinkingDelta, Delta: "hmm"}})
			on(loop.Event{Type: loop.MessageUpdate, Stream: &ai.Event{Type: ai.EventTextDelta, Delta: "hi"}})
			on(loop.Event{Type: loop.MessageUpdate, Stream: &ai.Event{Type: ai.EventTextEnd}})
			on(loop.Event{Type: loop.MessageEnd, Message: &ai.Message{Role: ai.RoleUser}})
			on(loop.Event{Type: loop.MessageEnd, Message: &ai.Message{Role: ai.RoleAssistant,
				Usage: ai.Usage{Input: 100, Output: 20, CacheRead: 3, CacheWrite: 4, Cost: ai.Cost{Total: 0.5}}}})
			on(loop.Event{Type: loop.MessageEnd})
			on(loop.Event{Type: loop.ToolStart, ToolCallID: "c1", ToolName: "bash", Args: json.RawMessage(`{"command":"make\ntest"}`)})
			on(loop.Event{Type: loop.ToolUpdate, ToolCallID: "c1"})
			on(loop.Event{Type: loop.ToolUpdate, ToolCallID: "c1", Result: &loop.ToolOutput{}})
			on(loop.Event{Type: loop.ToolUpdate, ToolCallID: "c1", Result: textResult("")})
			on(loop.Event{Type: loop.ToolUpdate, ToolCallID: "c1", Result: textResult("building")})
			on(loop.Event{Type: loop.ToolUpdate, ToolCallID: "c1", Result: &loop.ToolOutput{Content: []ai.Content{ai.ImageContent("AAAA", "image/png"), ai.TextContent("")}}})
			on(loop.Event{Type: loop.ToolEnd, ToolCallID: "c1", IsError: true, Result: textResult("exit 2")})
			on(loop.Event{Type: loop.ToolStart, ToolCallID: "c2", ToolName: "write", Args: json.RawMessage(`{"path":"` + file + `"}`)})
			if err := os.WriteFile(file, []byte("new"), 0o600); err != nil {
				t.Error(err)
			}
			on(loop.Event{Type: loop.ToolEnd, ToolCallID: "c2", IsError: true, Result: textResult("failed")})
			on(loop.Event{Type: loop.ToolStart, ToolCallID: "c3", ToolName: "edit", Args: json.RawMessage(`{"path":"f.txt"}`)})
			if err := os.Remove(file); err != nil {
				t.Error(err)
			}
			on(loop.Event{Type: loop.ToolEnd, ToolCallID: "c3", Result: textResult("gone")})
			on(loop.Event{Type: loop.ToolStart, ToolCallID: "c5", ToolName: "read", Args: json.RawMessage(`{"path":"f.txt","offset":1}`)})
			on(loop.Event{Type: loop.ToolStart, ToolCallID: "c4", ToolName: "mcp__docs__search"})
			on(loop.Event{Type: loop.ToolEnd, ToolCallID: "c4", Result: textResult("found")})
			on(loop.Event{Type: loop.ToolEnd, ToolCallID: "c9", Result: textResult("unknown call")})
			on(loop.Event{Type: loop.MessageEnd, Message: &ai.Message{Role: ai.RoleAssistant, Usage: ai.Usage{Input: 1, Cost: ai.Cost{Total: 0.25}}}})
			s.mu.Lock()
			s.name = "named"
			s.mu.Unlock()
			return runtime.Result{Result: loop.Result{Reason: loop.ReasonStop}}, nil
		},
		ended(loop.ReasonLength, nil),
		ended(loop.ReasonMaxSteps, nil),
		ended(loop.ReasonBudgetTokens, nil),
		ended(loop.ReasonBudgetUSD, nil),
		ended(loop.ReasonAborted, nil),
		ended("", nil),
		ended(loop.ReasonError, ai.Refused("the model declined to answer (refusal)")),
		ended(loop.ReasonError, &ai.ProviderError{Class: ai.ClassServer, Message: "overloaded"}),
		ended(loop.ReasonError, nil),
		func(context.Context, func(loop.Event)) (runtime.Result, error) {
			return runtime.Result{}, context.Canceled
		},
		func(context.Context, func(loop.Event)) (runtime.Result, error) {
			return runtime.Result{}, errors.New("the session file cannot be written")
		},
		func(context.Context, func(loop.Event)) (runtime.Result, error) {
			return runtime.Result{Result: loop.Result{Reason: loop.ReasonAborted}}, errors.New("aborted")
		},
	}
	c := dial(t, scriptedHost{s}, Options{})
	c.norm = append(c.norm, strings.NewReplacer(dir, "DIR"))
	c.exchange([]step{
		one(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/p","mcpServers":[]}}`,
			`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"availableCommands":[{"description":"fix it","input":{"hint":"arguments"},"name":"fix"}],"sessionUpdate":"available_commands_update"}}}`),
	})
	c.until(`"id":1,`)
	upd := func(u string) string {
		return `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":` + u + `}}`
	}
	prompt := func(id int) string {
		return sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"go"}]}}`, id)
	}
	stop := func(id int, reason string) string {
		return sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"stopReason":"%s"}}`, id, reason)
	}
	c.exchange([]step{
		one(prompt(2),
			upd(`{"content":{"text":"hmm","type":"text"},"sessionUpdate":"agent_thought_chunk"}`),
			upd(`{"content":{"text":"hi","type":"text"},"sessionUpdate":"agent_message_chunk"}`),
			upd(`{"cost":{"amount":0.5,"currency":"USD"},"sessionUpdate":"usage_update","size":0,"used":127}`),
			upd(`{"kind":"execute","rawInput":{"command":"make\ntest"},"sessionUpdate":"tool_call","status":"in_progress","title":"make","toolCallId":"c1"}`),
			upd(`{"content":[{"content":{"text":"building","type":"text"},"type":"content"}],"sessionUpdate":"tool_call_update","toolCallId":"c1"}`),
			upd(`{"content":[{"content":{"data":"AAAA","mimeType":"image/png","type":"image"},"type":"content"},{"content":{"text":"","type":"text"},"type":"content"}],"sessionUpdate":"tool_call_update","toolCallId":"c1"}`),
			upd(`{"content":[{"content":{"text":"exit 2","type":"text"},"type":"content"}],"sessionUpdate":"tool_call_update","status":"failed","toolCallId":"c1"}`),
			upd(`{"kind":"edit","locations":[{"path":"DIR/f.txt"}],"rawInput":{"path":"DIR/f.txt"},"sessionUpdate":"tool_call","status":"in_progress","title":"Write DIR/f.txt","toolCallId":"c2"}`),
			upd(`{"content":[{"content":{"text":"failed","type":"text"},"type":"content"}],"sessionUpdate":"tool_call_update","status":"failed","toolCallId":"c2"}`),
			upd(`{"kind":"edit","locations":[{"path":"/p/f.txt"}],"rawInput":{"path":"f.txt"},"sessionUpdate":"tool_call","status":"in_progress","title":"Edit f.txt","toolCallId":"c3"}`),
			upd(`{"content":[{"content":{"text":"gone","type":"text"},"type":"content"}],"sessionUpdate":"tool_call_update","status":"completed","toolCallId":"c3"}`),
			upd(`{"kind":"read","locations":[{"line":1,"path":"/p/f.txt"}],"rawInput":{"path":"f.txt","offset":1},"sessionUpdate":"tool_call","status":"in_progress","title":"Read f.txt","toolCallId":"c5"}`),
			upd(`{"kind":"other","rawInput":{},"sessionUpdate":"tool_call","status":"in_progress","title":"mcp__docs__search","toolCallId":"c4"}`),
			upd(`{"content":[{"content":{"text":"found","type":"text"},"type":"content"}],"sessionUpdate":"tool_call_update","status":"completed","toolCallId":"c4"}`),
			upd(`{"content":[{"content":{"text":"unknown call","type":"text"},"type":"content"}],"sessionUpdate":"tool_call_update","status":"completed","toolCallId":"c9"}`),
			upd(`{"cost":{"amount":0.75,"currency":"USD"},"sessionUpdate":"usage_update","size":0,"used":1}`),
			upd(`{"sessionUpdate":"session_info_update","title":"named","updatedAt":"2026-01-02T03:04:05Z"}`),
			stop(2, "end_turn")),
		one(prompt(3), stop(3, "max_tokens")),
		one(prompt(4), stop(4, "max_turn_requests")),
		one(prompt(5), stop(5, "max_turn_requests")),
		one(prompt(6), stop(6, "max_turn_requests")),
		one(prompt(7), stop(7, "cancelled")),
		one(prompt(8), stop(8, "end_turn")),
		one(prompt(9), stop(9, "refusal")),
		one(prompt(10), errLine(10, -32603, "the run failed: server: overloaded")),
		one(prompt(11), errLine(11, -32603, "the run failed")),
		one(prompt(12), stop(12, "cancelled")),
		one(prompt(13), errLine(13, -32603, "the session file cannot be written")),
		one(prompt(14), stop(14, "cancelled")),
		one(`{"jsonrpc":"2.0","id":15,"method":"session/list","params":{}}`, errLine(15, -32603, "the sessions folder cannot be read")),
	})
	if rest := c.close(); len(rest) != 0 {
		t.Fatalf("lines after stdin ended: %s", strings.Join(rest, "\n"))
	}
}
