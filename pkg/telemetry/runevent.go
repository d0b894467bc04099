package telemetry

// This file turns a run's loop events into its spans: a chat span per
// model request, an execute_tool span per tool call, a compaction span,
// and events on them.

import (
	"encoding/json"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"gopi/pkg/ai"
	"gopi/pkg/loop"
)

// Event records a loop event on the run's spans.
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
		r.messageEnd(e.Message, now)
	case loop.MessageStart:
		if e.Message != nil && e.Message.Role == ai.RoleAssistant {
			r.openChat(now)
			r.firstTok = false
		}
	case loop.MessageUpdate:
		r.firstToken(now)
	case loop.RetryStart:
		r.retryStart(e.Retry, now)
	case loop.RetryEnd:
		if r.chat != nil && e.Retry != nil {
			r.chat.SetAttributes(attribute.Int("gopi.retry.attempts", e.Retry.Attempt))
		}
	case loop.ToolStart:
		r.startTool(e, now)
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
		r.trimmed(e.Trim, now)
	}
}

// messageEnd ends the chat span at the assistant's message; any other
// message starts the wait for the next request, and a user message is
// the captured input when the prompt was not given.
func (r *run) messageEnd(m *ai.Message, now time.Time) {
	if m != nil && m.Role == ai.RoleAssistant {
		r.endChat(*m, now)
		return
	}
	r.reqStart = now
	if m != nil && m.Role == ai.RoleUser && r.t.cfg.CaptureContent && r.info.Prompt == nil {
		r.input = append(r.input, *m)
		r.root.SetAttributes(attribute.String(attrInput, r.t.scrub(messagesJSON(r.input))))
	}
}

// firstToken records the time to the chat's first streamed event.
func (r *run) firstToken(now time.Time) {
	if r.chat == nil || r.firstTok {
		return
	}
	r.firstTok = true
	r.chat.SetAttributes(attribute.Float64("gopi.response.time_to_first_token", now.Sub(r.chatAt).Seconds()))
	r.chat.AddEvent("gen_ai.first_token", trace.WithTimestamp(now))
}

func (r *run) retryStart(retry *ai.RetryInfo, now time.Time) {
	r.openChat(now)
	if retry == nil {
		return
	}
	r.chat.AddEvent("gen_ai.retry", trace.WithTimestamp(now), trace.WithAttributes(
		attribute.Int("gopi.retry.attempt", retry.Attempt),
		attribute.String("gopi.retry.reason", retry.ErrorMessage),
		attribute.Int64("gopi.retry.delay_ms", retry.Delay.Milliseconds())))
}

// startTool opens a tool call's execute_tool span; an MCP server's tool
// is an extension.
func (r *run) startTool(e loop.Event, now time.Time) {
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
}

func (r *run) trimmed(t *loop.TrimInfo, now time.Time) {
	if t == nil {
		return
	}
	r.root.AddEvent("gopi.context_trimmed", trace.WithTimestamp(now), trace.WithAttributes(
		attribute.Int("gopi.trim.turns", t.Turns), attribute.Int("gopi.trim.messages", t.Messages),
		attribute.Int("gopi.trim.tokens", t.Tokens)))
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
