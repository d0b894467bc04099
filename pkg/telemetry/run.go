package telemetry

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"gopi/pkg/ai"
	"gopi/pkg/loop"
	"gopi/pkg/sandbox"
)

// Info describes a run as it starts.
type Info struct {
	// Provider and Model are the model the run asks for.
	Provider, Model string
	// SessionID is gen_ai.conversation.id ("" without a session).
	SessionID string
	// Prompt is the run's input, exported only with CaptureContent; nil
	// takes the user messages the run's events carry.
	Prompt []ai.Message
	// SessionFile and Leaf name where a prompt is kept (Prompts: each
	// prompt's end).
	SessionFile string
	Leaf        func() string
	// Start is when the run began (the process's start, for gopi run):
	// the root span starts there and its gopi.run.time_to_first_request
	// counts from there. Zero is now.
	Start time.Time
	// Denials, when set, lists what the sandbox refused so far; each
	// tool's span gets the refusals made while it ran.
	Denials func() []sandbox.Denial
}

// End is how a run ended.
type End struct {
	Reason   string // loop.Reason
	ExitCode int
	Steps    int
	Usage    ai.Usage
	// SessionFile and LeafID name where the run is kept.
	SessionFile, LeafID string
	// Class is the failure's class ("" on success); Err its cause.
	Class string
	Err   error
}

// Attribute names of the GenAI semantic conventions and gopi's own.
const (
	attrOp           = "gen_ai.operation.name"
	attrProvider     = "gen_ai.provider.name"
	attrReqModel     = "gen_ai.request.model"
	attrRespModel    = "gen_ai.response.model"
	attrFinish       = "gen_ai.response.finish_reasons"
	attrIn           = "gen_ai.usage.input_tokens"
	attrOut          = "gen_ai.usage.output_tokens"
	attrCacheRead    = "gen_ai.usage.cache_read.input_tokens"
	attrCacheWrite   = "gen_ai.usage.cache_creation.input_tokens"
	attrConversation = "gen_ai.conversation.id"
	attrAgent        = "gen_ai.agent.name"
	attrToolName     = "gen_ai.tool.name"
	attrToolCallID   = "gen_ai.tool.call.id"
	attrToolType     = "gen_ai.tool.type"
	attrToolArgs     = "gen_ai.tool.call.arguments"
	attrToolResult   = "gen_ai.tool.call.result"
	attrInput        = "gen_ai.input.messages"
	attrOutput       = "gen_ai.output.messages"
	attrErrType      = "error.type"
)

// run records one invoke_agent span and its children.
type run struct {
	t    *Telemetry
	info Info

	mu       sync.Mutex
	root     trace.Span
	chat     trace.Span
	reqStart time.Time
	firstTok bool
	chatAt   time.Time
	tools    map[string]trace.Span
	compact  trace.Span
	denials  int
	ended    bool
	input    []ai.Message // the user messages seen (CaptureContent without Info.Prompt)
	asked    bool         // a model request was made
}

// Start opens a run's invoke_agent span; t nil gives Off.
func (t *Telemetry) Start(info Info) Recorder {
	if t == nil {
		return Off
	}
	r := &run{t: t, info: info, tools: map[string]trace.Span{}, reqStart: time.Now()}
	attrs := []attribute.KeyValue{attribute.String(attrOp, "invoke_agent"), attribute.String(attrAgent, "gopi"),
		attribute.String(attrProvider, providerName(info.Provider)), attribute.String(attrReqModel, info.Model)}
	if info.SessionID != "" {
		attrs = append(attrs, attribute.String(attrConversation, info.SessionID))
	}
	if t.cfg.CaptureContent && len(info.Prompt) > 0 {
		attrs = append(attrs, attribute.String(attrInput, t.scrub(messagesJSON(info.Prompt))))
	}
	if info.Start.IsZero() || info.Start.After(r.reqStart) {
		r.info.Start = r.reqStart
	}
	_, r.root = t.tracer.Start(t.parent, "invoke_agent gopi", trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...),
		trace.WithTimestamp(r.info.Start))
	if info.Denials != nil {
		r.denials = len(info.Denials())
	}
	return r
}

// child starts a span under the run's root.
func (r *run) child(name string, kind trace.SpanKind, at time.Time, attrs ...attribute.KeyValue) trace.Span {
	ctx := trace.ContextWithSpan(r.t.parent, r.root)
	_, s := r.t.tracer.Start(ctx, name, trace.WithSpanKind(kind), trace.WithTimestamp(at), trace.WithAttributes(attrs...))
	return s
}

func (r *run) Event(_ int, e loop.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ended {
		return
	}
	now := time.Now()
	switch e.Type {
	case loop.TurnStart:
		r.reqStart = now
	case loop.MessageEnd:
		if e.Message != nil && e.Message.Role == ai.RoleAssistant {
			r.endChat(*e.Message, now)
			break
		}
		r.reqStart = now
		if e.Message != nil && e.Message.Role == ai.RoleUser && r.t.cfg.CaptureContent && r.info.Prompt == nil {
			r.input = append(r.input, *e.Message)
			r.root.SetAttributes(attribute.String(attrInput, r.t.scrub(messagesJSON(r.input))))
		}
	case loop.MessageStart:
		if e.Message != nil && e.Message.Role == ai.RoleAssistant {
			r.openChat(now)
			r.firstTok = false
		}
	case loop.MessageUpdate:
		if r.chat != nil && !r.firstTok {
			r.firstTok = true
			r.chat.SetAttributes(attribute.Float64("gopi.response.time_to_first_token", now.Sub(r.chatAt).Seconds()))
			r.chat.AddEvent("gen_ai.first_token", trace.WithTimestamp(now))
		}
	case loop.RetryStart:
		r.openChat(now)
		if e.Retry != nil {
			r.chat.AddEvent("gen_ai.retry", trace.WithTimestamp(now), trace.WithAttributes(
				attribute.Int("gopi.retry.attempt", e.Retry.Attempt),
				attribute.String("gopi.retry.reason", e.Retry.ErrorMessage),
				attribute.Int64("gopi.retry.delay_ms", e.Retry.Delay.Milliseconds())))
		}
	case loop.RetryEnd:
		if r.chat != nil && e.Retry != nil {
			r.chat.SetAttributes(attribute.Int("gopi.retry.attempts", e.Retry.Attempt))
		}
	case loop.ToolStart:
		attrs := []attribute.KeyValue{attribute.String(attrOp, "execute_tool"), attribute.String(attrToolName, e.ToolName),
			attribute.String(attrToolCallID, e.ToolCallID)}
		if server, ok := mcpServer(e.ToolName); ok {
			attrs = append(attrs, attribute.String("gopi.mcp.server", server), attribute.String(attrToolType, "extension"))
		} else {
			attrs = append(attrs, attribute.String(attrToolType, "function"))
		}
		if r.t.cfg.CaptureContent {
			attrs = append(attrs, attribute.String(attrToolArgs, r.t.scrub(string(e.Args))))
		}
		r.tools[e.ToolCallID] = r.child("execute_tool "+e.ToolName, trace.SpanKindInternal, now, attrs...)
	case loop.ToolEnd:
		r.endTool(e, now)
	case loop.CompactionStart:
		if r.compact == nil && e.Compaction != nil {
			r.compact = r.child("compaction", trace.SpanKindInternal, now, attribute.String("gopi.compaction.reason", e.Compaction.Reason))
		}
	case loop.CompactionEnd:
		r.endCompaction(e, now)
		r.reqStart = now
	case loop.ContextTrimmed:
		if e.Trim != nil {
			r.root.AddEvent("gopi.context_trimmed", trace.WithTimestamp(now), trace.WithAttributes(
				attribute.Int("gopi.trim.turns", e.Trim.Turns), attribute.Int("gopi.trim.messages", e.Trim.Messages),
				attribute.Int("gopi.trim.tokens", e.Trim.Tokens)))
		}
	}
}

func (r *run) openChat(now time.Time) {
	if r.chat != nil {
		return
	}
	start := r.reqStart
	if start.IsZero() || start.After(now) {
		start = now
	}
	r.chatAt = start
	if !r.asked {
		r.asked = true
		r.root.SetAttributes(attribute.Float64("gopi.run.time_to_first_request", start.Sub(r.info.Start).Seconds()))
	}
	attrs := []attribute.KeyValue{attribute.String(attrOp, "chat"), attribute.String(attrProvider, providerName(r.info.Provider)),
		attribute.String(attrReqModel, r.info.Model)}
	if r.info.SessionID != "" {
		attrs = append(attrs, attribute.String(attrConversation, r.info.SessionID))
	}
	r.chat = r.child("chat "+r.info.Model, trace.SpanKindClient, start, attrs...)
}

func (r *run) endChat(m ai.Message, now time.Time) {
	r.openChat(now)
	s := r.chat
	r.chat = nil
	r.reqStart = now
	attrs := []attribute.KeyValue{attribute.StringSlice(attrFinish, []string{finishReason(m.StopReason)}),
		attribute.Int64(attrIn, m.Usage.Input), attribute.Int64(attrOut, m.Usage.Output)}
	if m.Model != "" {
		attrs = append(attrs, attribute.String(attrRespModel, m.Model))
	}
	if m.Usage.CacheRead > 0 {
		attrs = append(attrs, attribute.Int64(attrCacheRead, m.Usage.CacheRead))
	}
	if m.Usage.CacheWrite > 0 {
		attrs = append(attrs, attribute.Int64(attrCacheWrite, m.Usage.CacheWrite))
	}
	if m.Usage.Cost.Total > 0 {
		attrs = append(attrs, attribute.Float64("gopi.cost_usd", m.Usage.Cost.Total))
	}
	if r.t.cfg.CaptureContent {
		attrs = append(attrs, attribute.String(attrOutput, r.t.scrub(messagesJSON([]ai.Message{m}))))
	}
	s.SetAttributes(attrs...)
	r.measure(m, now)
	switch m.StopReason {
	case ai.StopError:
		s.SetAttributes(attribute.String(attrErrType, "error"))
		s.SetStatus(codes.Error, m.ErrorMessage)
	case ai.StopAborted:
		s.SetAttributes(attribute.String(attrErrType, string(ai.ClassAborted)))
		s.SetStatus(codes.Error, "aborted")
	}
	s.End(trace.WithTimestamp(now))
}

func (r *run) endTool(e loop.Event, now time.Time) {
	s, ok := r.tools[e.ToolCallID]
	if !ok {
		return
	}
	delete(r.tools, e.ToolCallID)
	if e.Result != nil {
		var d struct {
			Hook   string `json:"deniedBy"`
			Reason string `json:"reason"`
		}
		if json.Unmarshal(e.Result.Details, &d) == nil && d.Hook != "" {
			s.SetAttributes(attribute.String("gopi.hook.denied_by", d.Hook), attribute.String("gopi.hook.reason", d.Reason))
			s.AddEvent("gopi.hook.denied", trace.WithTimestamp(now), trace.WithAttributes(attribute.String("gopi.hook.name", d.Hook), attribute.String("gopi.hook.reason", d.Reason)))
		}
		if r.t.cfg.CaptureContent {
			s.SetAttributes(attribute.String(attrToolResult, r.t.scrub(resultText(e.Result))))
		}
	}
	if r.info.Denials != nil {
		all := r.info.Denials()
		for _, d := range all[min(r.denials, len(all)):] {
			s.AddEvent("gopi.sandbox.denied", trace.WithTimestamp(now), trace.WithAttributes(
				attribute.String("gopi.sandbox.tool", d.Tool), attribute.String("gopi.sandbox.operation", d.Operation),
				attribute.String("gopi.sandbox.target", d.Target), attribute.String("gopi.sandbox.rule", d.Rule)))
		}
		r.denials = len(all)
	}
	if e.IsError {
		s.SetAttributes(attribute.String(attrErrType, "tool_error"))
		s.SetStatus(codes.Error, "the tool returned an error")
	}
	s.End(trace.WithTimestamp(now))
}

func (r *run) endCompaction(e loop.Event, now time.Time) {
	s := r.compact
	if s == nil {
		return
	}
	r.compact = nil
	if c := e.Compaction; c != nil {
		s.SetAttributes(attribute.Int("gopi.compaction.tokens_before", c.TokensBefore),
			attribute.Int("gopi.compaction.estimated_tokens_after", c.EstimatedTokensAfter),
			attribute.Bool("gopi.compaction.will_retry", c.WillRetry))
		if c.Usage != nil {
			s.SetAttributes(attribute.Int64(attrIn, c.Usage.Input), attribute.Int64(attrOut, c.Usage.Output))
		}
		switch {
		case c.Aborted:
			s.SetAttributes(attribute.String(attrErrType, string(ai.ClassAborted)))
			s.SetStatus(codes.Error, "aborted")
		case c.ErrorMessage != "":
			s.SetAttributes(attribute.String(attrErrType, "error"))
			s.SetStatus(codes.Error, c.ErrorMessage)
		}
	}
	s.End(trace.WithTimestamp(now))
}

// End closes every span still open, then the root, and sends the run's
// spans.
func (r *run) End(end End) {
	r.mu.Lock()
	if r.ended {
		r.mu.Unlock()
		return
	}
	r.ended = true
	now := time.Now()
	abandon := func(s trace.Span) {
		s.SetAttributes(attribute.String(attrErrType, "abandoned"))
		s.SetStatus(codes.Error, "the run ended first")
		s.End(trace.WithTimestamp(now))
	}
	if r.chat != nil {
		abandon(r.chat)
	}
	for _, s := range r.tools {
		abandon(s)
	}
	if r.compact != nil {
		abandon(r.compact)
	}
	attrs := []attribute.KeyValue{attribute.String("gopi.run.reason", end.Reason), attribute.Int("gopi.run.exit_code", end.ExitCode),
		attribute.Int("gopi.run.steps", end.Steps), attribute.Float64("gopi.run.cost_usd", end.Usage.Cost.Total),
		attribute.Int64(attrIn, end.Usage.Input), attribute.Int64(attrOut, end.Usage.Output)}
	if end.Usage.CacheRead > 0 {
		attrs = append(attrs, attribute.Int64(attrCacheRead, end.Usage.CacheRead))
	}
	if end.Usage.CacheWrite > 0 {
		attrs = append(attrs, attribute.Int64(attrCacheWrite, end.Usage.CacheWrite))
	}
	if end.SessionFile != "" {
		attrs = append(attrs, attribute.String("gopi.session.file", end.SessionFile))
	}
	if end.LeafID != "" {
		attrs = append(attrs, attribute.String("gopi.session.leaf_id", end.LeafID))
	}
	r.root.SetAttributes(attrs...)
	if end.Class != "" {
		r.root.SetAttributes(attribute.String(attrErrType, end.Class))
		msg := end.Class
		if end.Err != nil {
			msg = end.Err.Error()
		}
		r.root.SetStatus(codes.Error, msg)
	}
	r.root.End(trace.WithTimestamp(now))
	r.mu.Unlock()
	r.t.Flush()
}

// providerName is gen_ai.provider.name's well-known value for gopi's
// provider names, the name itself otherwise.
func providerName(p string) string {
	switch p {
	case "xai":
		return "x_ai"
	case "mistral":
		return "mistral_ai"
	case "google", "gemini":
		return "gcp.gemini"
	case "azure", "azure-openai":
		return "azure.ai.openai"
	}
	return p
}

// finishReason is the GenAI name of a stop reason.
func finishReason(s ai.StopReason) string {
	switch s {
	case ai.StopToolUse:
		return "tool_call"
	case "":
		return "stop"
	}
	return string(s)
}

// mcpServer returns the server of an MCP tool (mcp__server__tool).
func mcpServer(name string) (string, bool) {
	rest, ok := strings.CutPrefix(name, "mcp__")
	if !ok {
		return "", false
	}
	server, _, ok := strings.Cut(rest, "__")
	return server, ok
}

// messagesJSON is the GenAI shape of messages: role and text parts.
func messagesJSON(ms []ai.Message) string {
	type part struct {
		Type    string `json:"type"`
		Content string `json:"content,omitempty"`
		Name    string `json:"name,omitempty"`
		ID      string `json:"id,omitempty"`
	}
	type msg struct {
		Role  string `json:"role"`
		Parts []part `json:"parts"`
	}
	out := make([]msg, 0, len(ms))
	for _, m := range ms {
		g := msg{Role: m.Role, Parts: []part{}}
		for _, c := range m.Content {
			switch c.Type {
			case ai.TypeText:
				g.Parts = append(g.Parts, part{Type: "text", Content: c.Text})
			case ai.TypeToolCall:
				g.Parts = append(g.Parts, part{Type: "tool_call", Name: c.Name, ID: c.ID, Content: string(c.Arguments)})
			}
		}
		out = append(out, g)
	}
	b, _ := json.Marshal(out)
	return string(b)
}

func resultText(o *loop.ToolOutput) string {
	var b strings.Builder
	for _, c := range o.Content {
		if c.Type == ai.TypeText {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

// measure records a model request in the GenAI client metrics.
func (r *run) measure(m ai.Message, now time.Time) {
	if r.t.meter == nil {
		return
	}
	attrs := []attribute.KeyValue{attribute.String(attrOp, "chat"), attribute.String(attrProvider, providerName(r.info.Provider)),
		attribute.String(attrReqModel, r.info.Model)}
	if m.Model != "" {
		attrs = append(attrs, attribute.String(attrRespModel, m.Model))
	}
	dur := attrs
	switch m.StopReason {
	case ai.StopError:
		dur = append(slices.Clone(attrs), attribute.String(attrErrType, "error"))
	case ai.StopAborted:
		dur = append(slices.Clone(attrs), attribute.String(attrErrType, string(ai.ClassAborted)))
	}
	r.t.meter.record(metricDuration, now.Sub(r.chatAt).Seconds(), dur...)
	if m.StopReason == ai.StopError || m.StopReason == ai.StopAborted {
		return
	}
	r.t.meter.record(metricTokens, float64(m.Usage.Input), append(slices.Clone(attrs), attribute.String("gen_ai.token.type", "input"))...)
	r.t.meter.record(metricTokens, float64(m.Usage.Output), append(slices.Clone(attrs), attribute.String("gen_ai.token.type", "output"))...)
}
