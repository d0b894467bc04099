package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"gopi/pkg/ai"
	"gopi/pkg/loop"
	"gopi/pkg/session"
)

// block is one content block of a prompt.
type block struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	Data     string `json:"data"`
	MimeType string `json:"mimeType"`
	URI      string `json:"uri"`
	Name     string `json:"name"`
	Resource *struct {
		URI      string `json:"uri"`
		Text     string `json:"text"`
		Blob     string `json:"blob"`
		MimeType string `json:"mimeType"`
	} `json:"resource"`
}

// userMessage turns a prompt's blocks into one user message; the first
// text that names a prompt template or skill is expanded.
func userMessage(gs Session, blocks []block) (ai.Message, error) {
	var content []ai.Content
	for i, b := range blocks {
		switch b.Type {
		case "text":
			text := b.Text
			if len(content) == 0 && strings.HasPrefix(strings.TrimSpace(text), "/") {
				exp, err := gs.Expand(text)
				if err != nil {
					return ai.Message{}, paramsErr(err.Error())
				}
				text = exp
			}
			content = append(content, ai.TextContent(text))
		case "image":
			if b.Data == "" || !strings.HasPrefix(b.MimeType, "image/") {
				return ai.Message{}, paramsErr(fmt.Sprintf(`prompt[%d]: an image needs "data" (base64) and an image "mimeType"`, i))
			}
			content = append(content, ai.ImageContent(b.Data, b.MimeType))
		case "resource_link":
			content = append(content, ai.TextContent(fmt.Sprintf("[%s](%s)", b.Name, b.URI)))
		case "resource":
			r := b.Resource
			switch {
			case r == nil:
				return ai.Message{}, paramsErr(fmt.Sprintf(`prompt[%d]: a resource needs "resource"`, i))
			case r.Blob != "" && strings.HasPrefix(r.MimeType, "image/"):
				content = append(content, ai.ImageContent(r.Blob, r.MimeType))
			case r.Blob != "":
				return ai.Message{}, paramsErr(fmt.Sprintf("prompt[%d]: resource %s is binary (%s): gopi takes text and images", i, r.URI, r.MimeType))
			default:
				content = append(content, ai.TextContent(fmt.Sprintf("<file uri=%q>\n%s\n</file>", r.URI, r.Text)))
			}
		default:
			return ai.Message{}, paramsErr(fmt.Sprintf("prompt[%d]: content type %q is not taken: send text, image, resource or resource_link", i, b.Type))
		}
	}
	if blank(content) {
		return ai.Message{}, paramsErr(`"prompt" is empty: send at least one text block`)
	}
	return ai.Message{Role: ai.RoleUser, Content: content}, nil
}

// blank reports a prompt of nothing but blank text (or nothing at all):
// nothing to send the model.
func blank(content []ai.Content) bool {
	for _, c := range content {
		if c.Type != ai.TypeText || strings.TrimSpace(c.Text) != "" {
			return false
		}
	}
	return true
}

func (s *Server) prompt(decode func(any) error) (any, error) {
	var p struct {
		SessionID string  `json:"sessionId"`
		Prompt    []block `json:"prompt"`
	}
	if err := decode(&p); err != nil {
		return nil, err
	}
	ss, err := s.session(p.SessionID)
	if err != nil {
		return nil, err
	}
	msg, err := userMessage(ss.s, p.Prompt)
	if err != nil {
		return nil, err
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	done := make(chan struct{})
	defer close(done)
	s.mu.Lock()
	closing := s.closed
	ss.mu.Lock()
	busy := ss.running != nil
	tr := &turn{s: s, ss: ss, calls: map[string]*call{}}
	if !busy && !closing {
		ss.running, ss.done, ss.ctx, ss.turn = stop, done, ctx, tr
	}
	ss.mu.Unlock()
	s.mu.Unlock()
	switch {
	case closing:
		return map[string]any{"stopReason": "cancelled"}, nil
	case busy:
		return nil, busyErr(ss.id)
	}
	defer func() {
		ss.mu.Lock()
		ss.running, ss.done, ss.ctx, ss.turn = nil, nil, nil, nil
		ss.mu.Unlock()
	}()
	res, err := ss.s.Prompt(ctx, []ai.Message{msg}, tr.event)
	s.nameChanged(ss)
	if err != nil && res.Reason != loop.ReasonAborted {
		if errors.Is(err, context.Canceled) {
			return map[string]any{"stopReason": "cancelled"}, nil
		}
		return nil, err
	}
	switch res.Reason {
	case loop.ReasonStop, "":
		return map[string]any{"stopReason": "end_turn"}, nil
	case loop.ReasonLength:
		return map[string]any{"stopReason": "max_tokens"}, nil
	case loop.ReasonMaxSteps, loop.ReasonBudgetTokens, loop.ReasonBudgetUSD:
		return map[string]any{"stopReason": "max_turn_requests"}, nil
	case loop.ReasonAborted:
		return map[string]any{"stopReason": "cancelled"}, nil
	}
	if res.Err != nil && isRefusal(res.Err) {
		return map[string]any{"stopReason": "refusal"}, nil
	}
	if res.Err != nil {
		return nil, fmt.Errorf("the run failed: %v", res.Err)
	}
	return nil, errors.New("the run failed")
}

// isRefusal reports a model's refusal to answer, as every adapter marks
// it (ai.ErrRefused: Anthropic's refusal, OpenAI's content filter and
// refusals, the Responses API's refusal content).
func isRefusal(err error) bool { return errors.Is(err, ai.ErrRefused) }

// turn maps one prompt's events to session/update notifications.
type turn struct {
	s  *Server
	ss *sess

	mu    sync.Mutex       // guards calls: a permission is asked from a tool's goroutine
	calls map[string]*call // by tool call id
}

// call is a tool call going on.
type call struct {
	name   string
	path   string // the file a file tool touches, absolute
	target string // the path or the command, as the permission rules see it
	old    *string
	update map[string]any // the tool_call notification's fields
}

func (t *turn) update(u map[string]any) { t.s.update(t.ss.id, u) }

func chunk(kind, text string) map[string]any {
	return map[string]any{"sessionUpdate": kind, "content": map[string]any{"type": "text", "text": text}}
}

func (t *turn) event(e loop.Event) {
	switch e.Type {
	case loop.MessageUpdate:
		if e.Stream == nil {
			return
		}
		switch e.Stream.Type {
		case ai.EventTextDelta:
			t.update(chunk("agent_message_chunk", e.Stream.Delta))
		case ai.EventThinkingDelta:
			t.update(chunk("agent_thought_chunk", e.Stream.Delta))
		}
	case loop.MessageEnd:
		if e.Message != nil && e.Message.Role == ai.RoleAssistant {
			t.usage(e.Message.Usage)
		}
	case loop.ToolStart:
		t.toolStart(e)
	case loop.ToolUpdate:
		if e.Result == nil || len(e.Result.Content) == 0 || e.Result.Content[0].Type == ai.TypeText && e.Result.Content[0].Text == "" {
			return
		}
		t.update(map[string]any{"sessionUpdate": "tool_call_update", "toolCallId": e.ToolCallID,
			"content": outputContent(e.Result.Content)})
	case loop.ToolEnd:
		t.toolEnd(e)
	}
}

// toolStart reports a tool call in progress and remembers it; for write
// and edit, with the file's text before the call.
func (t *turn) toolStart(e loop.Event) {
	c := &call{name: e.ToolName}
	u := toolCall(t.ss.cwd, e.ToolName, e.Args)
	u["sessionUpdate"] = "tool_call"
	u["toolCallId"] = e.ToolCallID
	u["status"] = "in_progress"
	u["rawInput"] = json.RawMessage(orEmpty(e.Args))
	if p, ok := u["_path"].(string); ok {
		c.path = p
		if e.ToolName == "write" || e.ToolName == "edit" {
			c.old = readSmall(p)
		}
	}
	c.target, _ = u["_target"].(string)
	delete(u, "_path")
	delete(u, "_target")
	c.update = u
	t.mu.Lock()
	t.calls[e.ToolCallID] = c
	t.mu.Unlock()
	t.update(u)
}

// toolEnd reports a tool call completed or failed, with its output and,
// for a write or edit that succeeded, the file's diff.
func (t *turn) toolEnd(e loop.Event) {
	t.mu.Lock()
	c := t.calls[e.ToolCallID]
	delete(t.calls, e.ToolCallID)
	t.mu.Unlock()
	status := "completed"
	if e.IsError {
		status = "failed"
	}
	var content []map[string]any
	if c != nil && c.path != "" && !e.IsError && (c.name == "write" || c.name == "edit") {
		if d := c.diff(); d != nil {
			content = append(content, d)
		}
	}
	var out []ai.Content
	if e.Result != nil {
		out = e.Result.Content
	}
	content = append(content, outputContent(out)...)
	t.update(map[string]any{"sessionUpdate": "tool_call_update", "toolCallId": e.ToolCallID,
		"status": status, "content": content})
}

// diff is the call's file's diff from its text before the call (null
// for a new file) to its text now; nil when it cannot be read now.
func (c *call) diff() map[string]any {
	now := readSmall(c.path)
	if now == nil {
		return nil
	}
	d := map[string]any{"type": "diff", "path": c.path, "newText": *now}
	if c.old != nil {
		d["oldText"] = *c.old
	} else {
		d["oldText"] = nil
	}
	return d
}

// usage sends the context's size after an answer, and what the session
// cost on this connection.
func (t *turn) usage(u ai.Usage) {
	used := u.Input + u.CacheRead + u.CacheWrite + u.Output
	m := t.ss.s.Model()
	msg := map[string]any{"sessionUpdate": "usage_update", "used": used, "size": m.ContextWindow}
	t.ss.mu.Lock()
	t.ss.cost += u.Cost.Total
	cost := t.ss.cost
	t.ss.mu.Unlock()
	if cost > 0 {
		msg["cost"] = map[string]any{"amount": cost, "currency": "USD"}
	}
	t.update(msg)
}

func orEmpty(b json.RawMessage) json.RawMessage {
	if len(b) == 0 {
		return json.RawMessage("{}")
	}
	return b
}

// outputContent is a tool's output as tool call content.
func outputContent(cs []ai.Content) []map[string]any {
	out := []map[string]any{}
	for _, c := range cs {
		switch c.Type {
		case ai.TypeText:
			out = append(out, map[string]any{"type": "content", "content": map[string]any{"type": "text", "text": c.Text}})
		case ai.TypeImage:
			out = append(out, map[string]any{"type": "content", "content": map[string]any{"type": "image", "data": c.Data, "mimeType": c.MimeType}})
		}
	}
	return out
}

// toolCall describes a call: its title, kind and locations; "_path" is
// the file a file tool touches.
func toolCall(cwd, name string, args json.RawMessage) map[string]any {
	var a struct {
		Path    string   `json:"path"`
		Command string   `json:"command"`
		Pattern string   `json:"pattern"`
		Offset  *float64 `json:"offset"`
	}
	_ = json.Unmarshal(args, &a)
	abs := func(p string) string {
		if p == "" {
			return cwd
		}
		if !filepath.IsAbs(p) {
			return filepath.Join(cwd, p)
		}
		return filepath.Clean(p)
	}
	u := map[string]any{"kind": "other", "title": name}
	switch name {
	case "bash":
		u["_target"] = a.Command
	case "read", "write", "edit", "grep", "find", "ls":
		u["_target"] = abs(a.Path)
	}
	loc := func(p string) {
		l := map[string]any{"path": p}
		if a.Offset != nil && *a.Offset >= 1 {
			l["line"] = int(*a.Offset)
		}
		u["locations"] = []map[string]any{l}
	}
	switch name {
	case "read":
		u["kind"], u["title"] = "read", "Read "+a.Path
		u["_path"] = abs(a.Path)
		loc(abs(a.Path))
	case "write":
		u["kind"], u["title"] = "edit", "Write "+a.Path
		u["_path"] = abs(a.Path)
		loc(abs(a.Path))
	case "edit":
		u["kind"], u["title"] = "edit", "Edit "+a.Path
		u["_path"] = abs(a.Path)
		loc(abs(a.Path))
	case "bash":
		first, _, _ := strings.Cut(a.Command, "\n")
		u["kind"], u["title"] = "execute", first
	case "grep", "find":
		u["kind"], u["title"] = "search", strings.TrimSpace(name+" "+a.Pattern)
		loc(abs(a.Path))
	case "ls":
		u["kind"], u["title"] = "search", strings.TrimSpace("ls "+a.Path)
		loc(abs(a.Path))
	}
	return u
}

// readSmall reads a file of at most 1 MiB for a diff; nil when it does
// not exist, is larger, or cannot be read.
func readSmall(path string) *string {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > 1<<20 {
		return nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	s := string(b)
	return &s
}

// replay sends a loaded session's path as session/update notifications.
func (s *Server) replay(ss *sess) {
	for _, e := range ss.s.Path() {
		if e.Type != session.TypeMessage || e.Message == nil {
			continue
		}
		m := e.Message
		switch m.Role {
		case ai.RoleUser:
			for _, c := range m.Content {
				if c.Type == ai.TypeText {
					s.update(ss.id, chunk("user_message_chunk", c.Text))
				}
			}
		case ai.RoleAssistant:
			for _, c := range m.Content {
				switch c.Type {
				case ai.TypeText:
					s.update(ss.id, chunk("agent_message_chunk", c.Text))
				case ai.TypeThinking:
					if !c.Redacted {
						s.update(ss.id, chunk("agent_thought_chunk", c.Thinking))
					}
				case ai.TypeToolCall:
					u := toolCall(ss.cwd, c.Name, c.Arguments)
					delete(u, "_path")
					delete(u, "_target")
					u["sessionUpdate"], u["toolCallId"], u["status"] = "tool_call", c.ID, "pending"
					u["rawInput"] = json.RawMessage(orEmpty(c.Arguments))
					s.update(ss.id, u)
				}
			}
		case ai.RoleToolResult:
			status := "completed"
			if m.IsError {
				status = "failed"
			}
			s.update(ss.id, map[string]any{"sessionUpdate": "tool_call_update", "toolCallId": m.ToolCallID,
				"status": status, "content": outputContent(m.Content)})
		}
	}
}
