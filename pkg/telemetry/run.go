package telemetry

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"time"

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
	// prompt's end; the session file also a run's abandoned by Abandon).
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
	root     *span
	chat     *span
	reqStart time.Time
	firstTok bool
	chatAt   time.Time
	tools    map[string]*span
	compact  *span
	denials  int
	ended    bool
	input    []ai.Message // the user messages seen (CaptureContent without Info.Prompt)
	asked    bool         // a model request was made
	steps    int          // the answers seen, and their usage (Abandon)
	usage    ai.Usage
}

// Start opens a run's invoke_agent span; t nil gives Off.
func (t *Telemetry) Start(info Info) Recorder {
	if t == nil {
		return Off
	}
	r := &run{t: t, info: info, tools: map[string]*span{}, reqStart: time.Now()}
	attrs := []attribute{str(attrOp, "invoke_agent"), str(attrAgent, "gopi"),
		str(attrProvider, providerName(info.Provider)), str(attrReqModel, info.Model)}
	if info.SessionID != "" {
		attrs = append(attrs, str(attrConversation, info.SessionID))
	}
	if t.cfg.CaptureContent && len(info.Prompt) > 0 {
		attrs = append(attrs, str(attrInput, t.scrub(messagesJSON(info.Prompt))))
	}
	if info.Start.IsZero() || info.Start.After(r.reqStart) {
		r.info.Start = r.reqStart
	}
	r.root = t.startSpan(t.parent, "invoke_agent gopi", spanInternal, r.info.Start, attrs...)
	if info.Denials != nil {
		r.denials = len(info.Denials())
	}
	t.mu.Lock()
	t.open[r] = true
	t.mu.Unlock()
	return r
}

// child starts a span under the run's root.
func (r *run) child(name string, kind int, at time.Time, attrs ...attribute) *span {
	return r.t.startSpan(r.root.sc, name, kind, at, attrs...)
}

// End closes every span still open, then the root, and sends the run's
// spans.
func (r *run) End(end End) {
	if r.end(end) {
		r.t.Flush()
	}
}

// end closes every span still open, then the root, once: it says
// whether this call did. The session file is Info's when end has none.
func (r *run) end(end End) bool {
	r.t.mu.Lock()
	delete(r.t.open, r)
	r.t.mu.Unlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ended {
		return false
	}
	r.ended = true
	if end.SessionFile == "" {
		end.SessionFile = r.info.SessionFile
	}
	now := time.Now()
	abandon := func(s *span) {
		s.SetAttributes(str(attrErrType, "abandoned"))
		s.SetError("the run ended first")
		s.End(now)
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
	attrs := []attribute{str("gopi.run.reason", end.Reason), integer("gopi.run.exit_code", end.ExitCode),
		integer("gopi.run.steps", end.Steps), f64("gopi.run.cost_usd", end.Usage.Cost.Total),
		i64(attrIn, end.Usage.Input), i64(attrOut, end.Usage.Output)}
	if end.Usage.CacheRead > 0 {
		attrs = append(attrs, i64(attrCacheRead, end.Usage.CacheRead))
	}
	if end.Usage.CacheWrite > 0 {
		attrs = append(attrs, i64(attrCacheWrite, end.Usage.CacheWrite))
	}
	if end.SessionFile != "" {
		attrs = append(attrs, str("gopi.session.file", end.SessionFile))
	}
	if end.LeafID != "" {
		attrs = append(attrs, str("gopi.session.leaf_id", end.LeafID))
	}
	r.root.SetAttributes(attrs...)
	if end.Class != "" {
		r.root.SetAttributes(str(attrErrType, end.Class))
		msg := end.Class
		if end.Err != nil {
			msg = end.Err.Error()
		}
		r.root.SetError(msg)
	}
	r.root.End(now)
	return true
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
	attrs := []attribute{str(attrOp, "chat"), str(attrProvider, providerName(r.info.Provider)),
		str(attrReqModel, r.info.Model)}
	if m.Model != "" {
		attrs = append(attrs, str(attrRespModel, m.Model))
	}
	dur := attrs
	switch m.StopReason {
	case ai.StopError:
		dur = append(slices.Clone(attrs), str(attrErrType, "error"))
	case ai.StopAborted:
		dur = append(slices.Clone(attrs), str(attrErrType, string(ai.ClassAborted)))
	}
	r.t.meter.record(metricDuration, now.Sub(r.chatAt).Seconds(), dur...)
	if m.StopReason == ai.StopError || m.StopReason == ai.StopAborted {
		return
	}
	r.t.meter.record(metricTokens, float64(m.Usage.Input), append(slices.Clone(attrs), str("gen_ai.token.type", "input"))...)
	r.t.meter.record(metricTokens, float64(m.Usage.Output), append(slices.Clone(attrs), str("gen_ai.token.type", "output"))...)
}
