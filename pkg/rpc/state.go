// rpc's state commands: get_state, get_messages, the queue modes,
// compact and automatic compaction, retries and session statistics.

package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"gopi/internal/pijson"
	"strconv"
	"time"

	"gopi/pkg/agent"
	"gopi/pkg/ai"
	"gopi/pkg/loop"
	"gopi/pkg/session"
)

var notCancelled = map[string]bool{"cancelled": false}

// rpcState is get_state's answer.
type rpcState struct {
	Model          *rpcModel `json:"model,omitempty"`
	Thinking       string    `json:"thinkingLevel"`
	Streaming      bool      `json:"isStreaming"`
	Compacting     bool      `json:"isCompacting"`
	SteeringMode   string    `json:"steeringMode"`
	FollowUpMode   string    `json:"followUpMode"`
	SessionFile    string    `json:"sessionFile,omitempty"`
	SessionID      string    `json:"sessionId"`
	SessionName    string    `json:"sessionName,omitempty"`
	AutoCompaction bool      `json:"autoCompactionEnabled"`
	MessageCount   int       `json:"messageCount"`
	Pending        int       `json:"pendingMessageCount"`
}

func (r *Server) cmdGetState(_ context.Context, _ *rpcCommand) (any, error) {
	r.mu.Lock()
	cur, op, steering, followUp, next, pending := r.cur, r.op, r.steering, r.followUp, len(r.next), r.pendingModel
	r.mu.Unlock()
	ctrl := cur.Runtime.Control()
	m := modelObject(cur.Model)
	if pending != nil {
		m = modelObject(*pending)
	}
	return rpcState{Model: &m, Thinking: string(r.level()), Streaming: op != nil && !op.compact, Compacting: op != nil && op.compact,
		SteeringMode: string(steering), FollowUpMode: string(followUp), SessionFile: cur.File,
		SessionID: cur.Runtime.Session().Header().ID, SessionName: cur.Runtime.Name(), AutoCompaction: r.autoCompaction(),
		MessageCount: len(contextMessages(cur.Runtime.Path())), Pending: ctrl.Pending() + next}, nil
}

// cmdGetMessages answers pi's agent messages: the context of the
// session's path as the next request would start from it (after a
// compaction its summary, then the messages kept), the messages of a run
// going on included once they ended.
func (r *Server) cmdGetMessages(_ context.Context, _ *rpcCommand) (any, error) {
	cur, _ := r.current()
	return map[string]any{"messages": contextMessages(cur.Runtime.Path())}, nil
}

// contextMessages are the messages of path's context in pi's
// AgentMessage shapes: a compaction or branch summary as pi's
// compactionSummary or branchSummary message, a stored message as it is.
func contextMessages(path []session.Entry) []ai.Message {
	c := session.BuildContext(path, session.Budget{})
	byID := make(map[string]*session.Entry, len(path))
	for i := range path {
		byID[path[i].ID] = &path[i]
	}
	out := make([]ai.Message, 0, len(c.Messages))
	for i, m := range c.Messages {
		e := byID[c.Sources[i]]
		switch {
		case e == nil:
			out = append(out, m)
		case e.Type == session.TypeMessage && e.Message != nil:
			out = append(out, *e.Message)
		case e.Type == session.TypeCompaction:
			out = append(out, summaryMessage("compactionSummary", e, map[string]any{"summary": e.Summary, "tokensBefore": e.TokensBefore}))
		case e.Type == session.TypeBranchSummary:
			out = append(out, summaryMessage("branchSummary", e, map[string]any{"summary": e.Summary, "fromId": e.FromID}))
		default:
			out = append(out, m)
		}
	}
	return out
}

// summaryMessage is pi's message of a summary entry, its timestamp the
// entry's.
func summaryMessage(role string, e *session.Entry, fields map[string]any) ai.Message {
	m := ai.Message{Role: role, Extra: map[string]json.RawMessage{}}
	for k, v := range fields {
		b, _ := pijson.Marshal(v) // as pi writes it: < and & unescaped
		m.Extra[k] = b
	}
	if t, err := time.Parse(time.RFC3339Nano, e.Timestamp); err == nil {
		m.Extra["timestamp"] = json.RawMessage(strconv.FormatInt(t.UnixMilli(), 10))
	}
	return m
}

func (r *Server) cmdQueueMode(c *rpcCommand, followUp bool) (any, error) {
	m, err := need(c.Mode, "mode")
	if err != nil {
		return nil, err
	}
	q := agent.QueueMode(m)
	if q != agent.All && q != agent.OneAtATime {
		return nil, fmt.Errorf("mode %q: use \"all\" or \"one-at-a-time\"", m)
	}
	r.mu.Lock()
	if followUp {
		r.followUp = q
	} else {
		r.steering = q
	}
	rt, s, f := r.cur.Runtime, r.steering, r.followUp
	r.mu.Unlock()
	rt.Control().SetQueueModes(s, f)
	return nil, nil
}

// startOp claims the one operation slot for op (a compaction in the
// background) on the current Runtime, with a context
// of its own that op.cancel ends, or answers busy while another holds it.
func (r *Server) startOp(op rpcOp) (*rpcOp, context.Context, error) {
	ctx, cancel := context.WithCancel(ai.WithRetryControl(context.Background(), &r.retry))
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.op != nil {
		cancel()
		return nil, nil, errBusy
	}
	op.cancel, op.done, op.rt = cancel, make(chan struct{}), r.cur.Runtime
	r.op = &op
	return &op, ctx, nil
}

// cmdCompact summarises the session in the background (abort stops it)
// and answers when the compaction entry is in the session. As pi, a run
// going on is aborted first, and compaction_start and compaction_end
// (reason manual) frame it.
func (r *Server) cmdCompact(_ context.Context, c *rpcCommand) (any, error) {
	if op := r.busy(); op != nil && !op.compact {
		r.abortOp()
	}
	op, ctx, err := r.startOp(rpcOp{compact: true})
	if err != nil {
		return nil, err
	}
	rt := op.rt
	_, stream := r.current()
	stream.Write(loop.Event{Type: loop.CompactionStart, Compaction: &loop.CompactionInfo{Reason: "manual"}})
	go func() {
		defer close(op.done)
		defer op.cancel()
		e, usage, err := rt.CompactSpent(ctx, c.CustomInstructions)
		end := &loop.CompactionInfo{Reason: "manual"}
		after := 0
		switch {
		case err != nil && ctx.Err() != nil:
			end.Aborted = true
		case err != nil:
			if errors.Is(err, session.ErrNothingToCompact) {
				err = errors.New("nothing to compact yet: the session has no older conversation to summarise")
			}
			end.ErrorMessage = "Compaction failed: " + err.Error()
		default:
			after = session.BuildContext(rt.Path(), session.Budget{}).Tokens
			end.Summary, end.FirstKeptEntryID, end.TokensBefore = e.Summary, e.FirstKeptEntryID, int(e.TokensBefore)
			end.Details, end.Usage, end.EstimatedTokensAfter = e.Details, &usage, after
		}
		r.mu.Lock()
		r.op = nil
		next := r.next
		r.next = nil
		// Idle before compaction_end is written, as pi: a client that
		// reads it may send the next command at once.
		stream.Write(loop.Event{Type: loop.CompactionEnd, Compaction: end})
		if len(next) > 0 && ctx.Err() == nil {
			r.launch(next)
		}
		r.mu.Unlock()
		if err != nil {
			r.reply(c.ID, "compact", nil, err)
			return
		}
		details := e.Details
		if details == nil {
			details = json.RawMessage("{}")
		}
		r.reply(c.ID, "compact", struct {
			Summary     string          `json:"summary"`
			FirstKept   string          `json:"firstKeptEntryId"`
			Before      int64           `json:"tokensBefore"`
			AfterApprox int             `json:"estimatedTokensAfter"`
			Usage       ai.Usage        `json:"usage"`
			Details     json.RawMessage `json:"details"`
		}{e.Summary, e.FirstKeptEntryID, e.TokensBefore, after, usage, details}, nil)
	}()
	return nil, errAnswered
}

func (r *Server) cmdAutoCompaction(_ context.Context, c *rpcCommand) (any, error) {
	if c.Enabled == nil {
		return nil, errors.New(`field "enabled" is required (true or false)`)
	}
	if op := r.busy(); op != nil {
		if op.compact {
			return nil, errBusy
		}
		// As pi, answered at once; the run's Runtime keeps its setting
		// until the run ends.
		on := *c.Enabled
		r.mu.Lock()
		r.pendingAuto = &on
		r.mu.Unlock()
		return nil, nil
	}
	w := r.atLeaf()
	w.Thinking = r.level()
	o, err := r.host.SetAutoCompaction(*c.Enabled, w)
	if err != nil {
		return nil, err
	}
	r.swap(o)
	return nil, nil
}

// autoCompaction is the setting, one asked for during the run included.
func (r *Server) autoCompaction() bool {
	r.mu.Lock()
	p := r.pendingAuto
	r.mu.Unlock()
	if p != nil {
		return *p
	}
	return r.host.AutoCompaction()
}

// cmdAutoRetry switches automatic retries for the requests that fail
// from now on.
func (r *Server) cmdAutoRetry(_ context.Context, c *rpcCommand) (any, error) {
	if c.Enabled == nil {
		return nil, errors.New(`field "enabled" is required (true or false)`)
	}
	r.retry.SetEnabled(*c.Enabled)
	return nil, nil
}

// cmdAbortRetry cancels the wait before a pending retry: the request
// fails with its last error (auto_retry_end says "Retry cancelled").
// Without one pending it does nothing, as pi.
func (r *Server) cmdAbortRetry(_ context.Context, _ *rpcCommand) (any, error) {
	r.retry.CancelWait()
	return nil, nil
}

func (r *Server) cmdStats(_ context.Context, _ *rpcCommand) (any, error) {
	cur, _ := r.current()
	store := cur.Runtime.Session()
	var users, assistants, calls, results int
	msgs := cur.Runtime.Messages()
	for _, m := range msgs {
		switch m.Role {
		case ai.RoleUser:
			users++
		case ai.RoleAssistant:
			assistants++
			for _, b := range m.Content {
				if b.Type == ai.TypeToolCall {
					calls++
				}
			}
		case ai.RoleToolResult:
			results++
		}
	}
	var total ai.Usage
	for _, e := range store.Entries() {
		if e.Type == session.TypeMessage && e.Message != nil && e.Message.Role == ai.RoleAssistant {
			total = total.Add(e.Message.Usage)
		}
	}
	type tokens struct {
		Input      int64 `json:"input"`
		Output     int64 `json:"output"`
		CacheRead  int64 `json:"cacheRead"`
		CacheWrite int64 `json:"cacheWrite"`
		Total      int64 `json:"total"`
	}
	type contextUsage struct {
		Tokens        *int64   `json:"tokens"`
		ContextWindow int      `json:"contextWindow"`
		Percent       *float64 `json:"percent"`
	}
	out := struct {
		SessionFile  string        `json:"sessionFile,omitempty"`
		SessionID    string        `json:"sessionId"`
		Users        int           `json:"userMessages"`
		Assistants   int           `json:"assistantMessages"`
		Calls        int           `json:"toolCalls"`
		Results      int           `json:"toolResults"`
		Total        int           `json:"totalMessages"`
		Tokens       tokens        `json:"tokens"`
		Cost         float64       `json:"cost"`
		ContextUsage *contextUsage `json:"contextUsage,omitempty"`
	}{cur.File, store.Header().ID, users, assistants, calls, results, len(msgs),
		tokens{total.Input, total.Output, total.CacheRead, total.CacheWrite, total.Input + total.Output + total.CacheRead + total.CacheWrite},
		total.Cost.Total, nil}
	if w := cur.Model.ContextWindow; w > 0 {
		out.ContextUsage = &contextUsage{ContextWindow: w}
		if n, ok := ai.ContextTokens(msgs); ok || len(msgs) == 0 {
			// An empty session's context is 0 tokens, as pi says.
			p := float64(n) * 100 / float64(w)
			out.ContextUsage.Tokens, out.ContextUsage.Percent = &n, &p
		}
	}
	return out, nil
}
