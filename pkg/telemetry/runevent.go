package telemetry

// This file turns a run's loop events into its spans: a chat span per
// model request, an execute_tool span per tool call, a compaction span,
// and events on them.

import (
	"encoding/json"
	"time"

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
			r.chat.SetAttributes(integer("gopi.retry.attempts", e.Retry.Attempt))
		}
	case loop.ToolStart:
		r.startTool(e, now)
	case loop.ToolEnd:
		r.endTool(e, now)
	case loop.CompactionStart:
		if r.compact == nil && e.Compaction != nil {
			r.compact = r.child("compaction", spanInternal, now, str("gopi.compaction.reason", e.Compaction.Reason))
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
		r.steps++
		r.usage = r.usage.Add(m.Usage)
		r.endChat(*m, now)
		return
	}
	r.reqStart = now
	if m != nil && m.Role == ai.RoleUser && r.t.cfg.CaptureContent && r.info.Prompt == nil {
		r.input = append(r.input, *m)
		r.root.SetAttributes(str(attrInput, r.t.scrub(messagesJSON(r.input))))
	}
}

// firstToken records the time to the chat's first streamed event.
func (r *run) firstToken(now time.Time) {
	if r.chat == nil || r.firstTok {
		return
	}
	r.firstTok = true
	r.chat.SetAttributes(f64("gopi.response.time_to_first_token", now.Sub(r.chatAt).Seconds()))
	r.chat.AddEvent("gen_ai.first_token", now)
}

func (r *run) retryStart(retry *ai.RetryInfo, now time.Time) {
	r.openChat(now)
	if retry == nil {
		return
	}
	r.chat.AddEvent("gen_ai.retry", now,
		integer("gopi.retry.attempt", retry.Attempt),
		str("gopi.retry.reason", retry.ErrorMessage),
		i64("gopi.retry.delay_ms", retry.Delay.Milliseconds()))
}

// startTool opens a tool call's execute_tool span; an MCP server's tool
// is an extension.
func (r *run) startTool(e loop.Event, now time.Time) {
	attrs := []attribute{str(attrOp, "execute_tool"), str(attrToolName, e.ToolName),
		str(attrToolCallID, e.ToolCallID)}
	if server, ok := mcpServer(e.ToolName); ok {
		attrs = append(attrs, str("gopi.mcp.server", server), str(attrToolType, "extension"))
	} else {
		attrs = append(attrs, str(attrToolType, "function"))
	}
	if r.t.cfg.CaptureContent {
		attrs = append(attrs, str(attrToolArgs, r.t.scrub(string(e.Args))))
	}
	r.tools[e.ToolCallID] = r.child("execute_tool "+e.ToolName, spanInternal, now, attrs...)
}

func (r *run) trimmed(t *loop.TrimInfo, now time.Time) {
	if t == nil {
		return
	}
	r.root.AddEvent("gopi.context_trimmed", now,
		integer("gopi.trim.turns", t.Turns), integer("gopi.trim.messages", t.Messages),
		integer("gopi.trim.tokens", t.Tokens))
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
		r.root.SetAttributes(f64("gopi.run.time_to_first_request", start.Sub(r.info.Start).Seconds()))
	}
	attrs := []attribute{str(attrOp, "chat"), str(attrProvider, providerName(r.info.Provider)),
		str(attrReqModel, r.info.Model)}
	if r.info.SessionID != "" {
		attrs = append(attrs, str(attrConversation, r.info.SessionID))
	}
	r.chat = r.child("chat "+r.info.Model, spanClient, start, attrs...)
}

func (r *run) endChat(m ai.Message, now time.Time) {
	r.openChat(now)
	s := r.chat
	r.chat = nil
	r.reqStart = now
	attrs := []attribute{strs(attrFinish, []string{finishReason(m.StopReason)}),
		i64(attrIn, m.Usage.Input), i64(attrOut, m.Usage.Output)}
	if m.Model != "" {
		attrs = append(attrs, str(attrRespModel, m.Model))
	}
	if m.Usage.CacheRead > 0 {
		attrs = append(attrs, i64(attrCacheRead, m.Usage.CacheRead))
	}
	if m.Usage.CacheWrite > 0 {
		attrs = append(attrs, i64(attrCacheWrite, m.Usage.CacheWrite))
	}
	if m.Usage.Cost.Total > 0 {
		attrs = append(attrs, f64("gopi.cost_usd", m.Usage.Cost.Total))
	}
	if r.t.cfg.CaptureContent {
		attrs = append(attrs, str(attrOutput, r.t.scrub(messagesJSON([]ai.Message{m}))))
	}
	s.SetAttributes(attrs...)
	r.measure(m, now)
	switch m.StopReason {
	case ai.StopError:
		s.SetAttributes(str(attrErrType, "error"))
		s.SetError(m.ErrorMessage)
	case ai.StopAborted:
		s.SetAttributes(str(attrErrType, string(ai.ClassAborted)))
		s.SetError("aborted")
	}
	s.End(now)
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
			s.SetAttributes(str("gopi.hook.denied_by", d.Hook), str("gopi.hook.reason", d.Reason))
			s.AddEvent("gopi.hook.denied", now, str("gopi.hook.name", d.Hook), str("gopi.hook.reason", d.Reason))
		}
		if r.t.cfg.CaptureContent {
			s.SetAttributes(str(attrToolResult, r.t.scrub(resultText(e.Result))))
		}
	}
	if r.info.Denials != nil {
		all := r.info.Denials()
		for _, d := range all[min(r.denials, len(all)):] {
			s.AddEvent("gopi.sandbox.denied", now,
				str("gopi.sandbox.tool", d.Tool), str("gopi.sandbox.operation", d.Operation),
				str("gopi.sandbox.target", d.Target), str("gopi.sandbox.rule", d.Rule))
		}
		r.denials = len(all)
	}
	if e.IsError {
		s.SetAttributes(str(attrErrType, "tool_error"))
		s.SetError("the tool returned an error")
	}
	s.End(now)
}

func (r *run) endCompaction(e loop.Event, now time.Time) {
	s := r.compact
	if s == nil {
		return
	}
	r.compact = nil
	if c := e.Compaction; c != nil {
		s.SetAttributes(integer("gopi.compaction.tokens_before", c.TokensBefore),
			integer("gopi.compaction.estimated_tokens_after", c.EstimatedTokensAfter),
			boolean("gopi.compaction.will_retry", c.WillRetry))
		if c.Usage != nil {
			s.SetAttributes(i64(attrIn, c.Usage.Input), i64(attrOut, c.Usage.Output))
		}
		switch {
		case c.Aborted:
			s.SetAttributes(str(attrErrType, string(ai.ClassAborted)))
			s.SetError("aborted")
		case c.ErrorMessage != "":
			s.SetAttributes(str(attrErrType, "error"))
			s.SetError(c.ErrorMessage)
		}
	}
	s.End(now)
}
