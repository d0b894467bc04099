// Package faux is the scripted model: it plays a list of responses (text,
// thinking, tool calls, an error, delays, a refusal to notice
// cancellation) through the same stream grammar as real providers, records
// every request it receives, and echoes the last user message once the
// script is exhausted. Tests drive the loop and the agent with it, and the
// CLI uses it offline with --provider faux.
package faux

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"gopi/pkg/ai"
)

// Response is one scripted assistant answer.
type Response struct {
	Thinking  string     `json:"thinking,omitempty"`
	Text      string     `json:"text,omitempty"`
	ToolCalls []ToolCall `json:"toolCalls,omitempty"`
	// ChunkSize is how many characters each delta carries; 0 sends each
	// block in one delta.
	ChunkSize int `json:"chunkSize,omitempty"`
	// DelayMs waits before each chunk.
	DelayMs int `json:"delayMs,omitempty"`
	// Error ends the response with this error after its content.
	Error string `json:"error,omitempty"`
	// ErrorClass classes Error (ai.Class names); default "server".
	ErrorClass string `json:"errorClass,omitempty"`
	// IgnoreCancel plays the whole response even when the context is
	// cancelled, like a model that never looks at it.
	IgnoreCancel bool `json:"ignoreCancel,omitempty"`
	// StopReason overrides the stop reason (e.g. "length").
	StopReason string `json:"stopReason,omitempty"`
	// Usage overrides the estimated usage.
	Usage *ai.Usage `json:"usage,omitempty"`
}

// ToolCall is a scripted tool call; an empty ID gets one generated.
type ToolCall struct {
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// Text and Call build responses tersely in tests.
func Text(s string) Response { return Response{Text: s} }

// Call returns a response that calls one tool with JSON arguments.
func Call(name, args string) Response {
	return Response{ToolCalls: []ToolCall{{Name: name, Arguments: json.RawMessage(args)}}}
}

// Info describes the faux model. It takes images: a script answers
// whatever it is sent, so it is sent images as they are.
var Info = ai.Info{ID: "faux", Name: "Scripted model", Provider: "faux", API: "faux",
	ContextWindow: 200_000, MaxOutputTokens: 16_384, Images: true}

// Model plays a script. It is safe for concurrent use.
type Model struct {
	info ai.Info
	now  func() time.Time

	mu        sync.Mutex
	script    []Response
	next      int
	requests  []ai.Request
	callCount int
}

// New returns a model that plays responses in order.
func New(responses ...Response) *Model {
	return &Model{info: Info, now: time.Now, script: responses}
}

// WithClock makes the model stamp messages with now.
func (m *Model) WithClock(now func() time.Time) *Model {
	m.now = now
	return m
}

// WithInfo makes the model describe itself as info (api, provider, id).
func (m *Model) WithInfo(info ai.Info) *Model {
	m.info = info
	return m
}

// Push appends responses to the script.
func (m *Model) Push(responses ...Response) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.script = append(m.script, responses...)
}

// Requests returns deep copies of every request received, in order.
func (m *Model) Requests() []ai.Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]ai.Request, len(m.requests))
	for i, r := range m.requests {
		out[i] = cloneRequest(r)
	}
	return out
}

// Remaining reports how many scripted responses are left.
func (m *Model) Remaining() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.script) - m.next
}

func cloneRequest(r ai.Request) ai.Request {
	r.Messages = ai.CloneMessages(r.Messages)
	r.Tools = append([]ai.ToolSpec(nil), r.Tools...)
	return r
}

// take records the request and returns the next response.
func (m *Model) take(req *ai.Request) (Response, int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests = append(m.requests, cloneRequest(*req))
	m.callCount++
	if m.next < len(m.script) {
		r := m.script[m.next]
		m.next++
		return r, m.callCount
	}
	return Response{Text: echo(req)}, m.callCount
}

// echo answers with the last user message's text.
func echo(req *ai.Request) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == ai.RoleUser {
			return req.Messages[i].Text()
		}
	}
	return ""
}

// Stream plays the next scripted response.
func (m *Model) Stream(ctx context.Context, req *ai.Request) iter.Seq[ai.Event] {
	resp, n := m.take(req)
	resp.Text = expand(resp.Text, req)
	return func(yield func(ai.Event) bool) {
		p := player{ctx: ctx, resp: resp, b: ai.NewBuilder(m.info, m.now().UnixMilli(), yield), n: n}
		p.play(m.info, req)
	}
}

type player struct {
	ctx  context.Context
	resp Response
	b    *ai.Builder
	n    int
}

func (p *player) play(info ai.Info, req *ai.Request) {
	if !p.b.Start() {
		return
	}
	ok := p.block(p.resp.Thinking, p.b.ThinkingStart, p.b.ThinkingDelta, func(i int) bool { return p.b.ThinkingEnd(i, "faux-signature", false) }) &&
		p.block(p.resp.Text, p.b.TextStart, p.b.TextDelta, func(i int) bool { return p.b.TextEnd(i, "") }) &&
		p.calls()
	if !ok {
		if err := p.cancelled(); err != nil {
			p.b.Fail(p.ctx, err)
		}
		return
	}
	p.b.SetUsage(info.WithCost(p.usage(req)))
	if p.resp.Error != "" {
		class := ai.Class(p.resp.ErrorClass)
		if class == "" {
			class = ai.ClassServer
		}
		p.b.Fail(nil, &ai.ProviderError{Class: class, Message: p.resp.Error})
		return
	}
	p.b.Done(p.stopReason())
}

func (p *player) stopReason() ai.StopReason {
	switch {
	case p.resp.StopReason != "":
		return ai.StopReason(p.resp.StopReason)
	case len(p.resp.ToolCalls) > 0:
		return ai.StopToolUse
	}
	return ai.StopStop
}

// cancelled reports the context's error unless the script ignores it.
func (p *player) cancelled() error {
	if p.resp.IgnoreCancel {
		return nil
	}
	return p.ctx.Err()
}

// wait sleeps DelayMs; false when cancelled (unless ignored).
func (p *player) wait() bool {
	if err := p.cancelled(); err != nil {
		return false
	}
	if p.resp.DelayMs <= 0 {
		return true
	}
	t := time.NewTimer(time.Duration(p.resp.DelayMs) * time.Millisecond)
	defer t.Stop()
	if p.resp.IgnoreCancel {
		<-t.C
		return true
	}
	select {
	case <-t.C:
		return true
	case <-p.ctx.Done():
		return false
	}
}

func (p *player) block(s string, start func() (int, bool), delta func(int, string) bool, end func(int) bool) bool {
	if s == "" {
		return true
	}
	idx, ok := start()
	if !ok {
		return false
	}
	for _, c := range chunks(s, p.resp.ChunkSize) {
		if !p.wait() || !delta(idx, c) {
			return false
		}
	}
	return end(idx)
}

func (p *player) calls() bool {
	for i, c := range p.resp.ToolCalls {
		id := c.ID
		if id == "" {
			id = fmt.Sprintf("call_%d_%d", p.n, i+1)
		}
		args := string(c.Arguments)
		ok := p.block(orEmpty(args), func() (int, bool) { return p.b.ToolCallStart(id, c.Name) }, p.b.ToolCallDelta, p.b.ToolCallEnd)
		if !ok {
			return false
		}
	}
	return true
}

func orEmpty(args string) string {
	if args == "" {
		return "{}"
	}
	return args
}

// chunks splits s into pieces of n characters (never inside a rune).
func chunks(s string, n int) []string {
	if n <= 0 || utf8.RuneCountInString(s) <= n {
		return []string{s}
	}
	var out []string
	for len(s) > 0 {
		i, count := 0, 0
		for i < len(s) && count < n {
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
			count++
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}

// usage estimates tokens as characters/4, deterministically.
func (p *player) usage(req *ai.Request) ai.Usage {
	if p.resp.Usage != nil {
		return *p.resp.Usage
	}
	in := len(req.SystemPrompt)
	for _, m := range req.Messages {
		b, _ := json.Marshal(m.Content)
		in += len(b)
	}
	out := len(p.resp.Text) + len(p.resp.Thinking)
	for _, c := range p.resp.ToolCalls {
		out += len(c.Name) + len(c.Arguments)
	}
	u := ai.Usage{Input: int64(in+3) / 4, Output: int64(out+3) / 4}
	u.TotalTokens = u.Input + u.Output
	return u
}

// expand fills {{prompt}} with the last user text and {{toolResult}} with
// the text of the last tool result, so scripts can use what the run did.
func expand(s string, req *ai.Request) string {
	if !strings.Contains(s, "{{") {
		return s
	}
	last := ""
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == ai.RoleToolResult {
			last = req.Messages[i].Text()
			break
		}
	}
	return strings.NewReplacer("{{prompt}}", echo(req), "{{toolResult}}", last).Replace(s)
}
