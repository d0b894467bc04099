package mode

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"gopi/pkg/agent"
	"gopi/pkg/ai"
	"gopi/pkg/loop"
	"gopi/pkg/session"
	"gopi/pkg/tools"
)

// rpcCommand is every field a command may carry; which ones a command
// reads is its own (rpcHandlers). A field of the wrong type fails the
// decoding with its name.
type rpcCommand struct {
	ID                 *string         `json:"-"`
	Type               string          `json:"type"`
	Message            *string         `json:"message"`
	Images             []rpcImage      `json:"images"`
	StreamingBehavior  string          `json:"streamingBehavior"`
	Provider           *string         `json:"provider"`
	ModelID            *string         `json:"modelId"`
	Level              *string         `json:"level"`
	Mode               *string         `json:"mode"`
	Enabled            *bool           `json:"enabled"`
	CustomInstructions string          `json:"customInstructions"`
	Command            *string         `json:"command"`
	ExcludeFromContext bool            `json:"excludeFromContext"`
	OutputPath         string          `json:"outputPath"`
	SessionPath        *string         `json:"sessionPath"`
	EntryID            *string         `json:"entryId"`
	Since              *string         `json:"since"`
	Name               *string         `json:"name"`
	ParentSession      *string         `json:"parentSession"`
	Raw                json.RawMessage `json:"-"`
}

// rpcImage is an image of a prompt, in pi's ImageContent shape.
type rpcImage struct {
	Type     string `json:"type"`
	Data     string `json:"data"`
	MimeType string `json:"mimeType"`
}

// rpcHandlers answer the commands of pi 1.6's rpc-commands.md. A handler
// returns the response's data (nil: none) or the error to answer with;
// errAnswered means it answers itself (later, from the background).
var rpcHandlers map[string]func(r *RPC, ctx context.Context, c *rpcCommand) (any, error)

func init() {
	rpcHandlers = map[string]func(r *RPC, ctx context.Context, c *rpcCommand) (any, error){
		"prompt":                        (*RPC).cmdPrompt,
		"steer":                         func(r *RPC, _ context.Context, c *rpcCommand) (any, error) { return r.cmdQueue(c, false) },
		"follow_up":                     func(r *RPC, _ context.Context, c *rpcCommand) (any, error) { return r.cmdQueue(c, true) },
		"abort":                         (*RPC).cmdAbort,
		"clear_queue":                   (*RPC).cmdClearQueue,
		"new_session":                   (*RPC).cmdNewSession,
		"get_state":                     (*RPC).cmdGetState,
		"get_messages":                  (*RPC).cmdGetMessages,
		"set_model":                     (*RPC).cmdSetModel,
		"cycle_model":                   (*RPC).cmdCycleModel,
		"get_available_models":          (*RPC).cmdModels,
		"set_thinking_level":            (*RPC).cmdSetThinking,
		"cycle_thinking_level":          (*RPC).cmdCycleThinking,
		"get_available_thinking_levels": (*RPC).cmdThinkingLevels,
		"set_steering_mode":             func(r *RPC, _ context.Context, c *rpcCommand) (any, error) { return r.cmdQueueMode(c, false) },
		"set_follow_up_mode":            func(r *RPC, _ context.Context, c *rpcCommand) (any, error) { return r.cmdQueueMode(c, true) },
		"compact":                       (*RPC).cmdCompact,
		"set_auto_compaction":           (*RPC).cmdAutoCompaction,
		"set_auto_retry":                (*RPC).cmdAutoRetry,
		"abort_retry":                   (*RPC).cmdAbortRetry,
		"bash":                          (*RPC).cmdBash,
		"abort_bash":                    (*RPC).cmdAbortBash,
		"get_session_stats":             (*RPC).cmdStats,
		"export_html":                   (*RPC).cmdExport,
		"switch_session":                (*RPC).cmdSwitch,
		"fork":                          (*RPC).cmdFork,
		"clone":                         (*RPC).cmdClone,
		"get_fork_messages":             (*RPC).cmdForkMessages,
		"get_entries":                   (*RPC).cmdEntries,
		"get_tree":                      (*RPC).cmdTree,
		"get_last_assistant_text":       (*RPC).cmdLastText,
		"set_session_name":              (*RPC).cmdSetName,
		"get_commands":                  (*RPC).cmdCommands,
	}
}

// errAnswered: the handler writes its response itself.
var errAnswered = errors.New("answered")

// handle decodes one line and answers it. Bad input is answered with
// success false and never stops the mode.
func (r *RPC) handle(ctx context.Context, line []byte) {
	var head map[string]json.RawMessage
	if err := json.Unmarshal(line, &head); err != nil || head == nil {
		msg := `the line is not a JSON object: a command is {"type":NAME,...}`
		if !json.Valid(line) {
			msg = err.Error()
		}
		r.reply(nil, "parse", nil, fmt.Errorf("Failed to parse command: %s", msg))
		return
	}
	c := &rpcCommand{Raw: line}
	if raw, ok := head["id"]; ok && string(raw) != "null" {
		var id string
		if err := json.Unmarshal(raw, &id); err != nil {
			r.reply(nil, "parse", nil, fmt.Errorf("Failed to parse command: \"id\" must be a string, not %s", raw))
			return
		}
		c.ID = &id
	}
	var typ string
	if raw, ok := head["type"]; !ok || json.Unmarshal(raw, &typ) != nil || typ == "" {
		r.reply(c.ID, "parse", nil, errors.New(`Failed to parse command: "type" must be the command's name, e.g. {"type":"get_state"}`))
		return
	}
	h, ok := rpcHandlers[typ]
	if !ok {
		r.reply(c.ID, typ, nil, fmt.Errorf("Unknown command: %s", typ))
		return
	}
	if err := json.Unmarshal(line, c); err != nil {
		r.reply(c.ID, typ, nil, fieldError(err))
		return
	}
	data, err := h(r, ctx, c)
	if errors.Is(err, errAnswered) {
		return
	}
	r.reply(c.ID, typ, data, err)
}

// fieldError names the field of the wrong type.
func fieldError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return fmt.Errorf("field %q must be %s, not %s", te.Field, jsonKind(te.Type.Kind().String()), te.Value)
	}
	return fmt.Errorf("Failed to parse command: %v", err)
}

func jsonKind(k string) string {
	switch k {
	case "string", "ptr":
		return "a string"
	case "bool":
		return "true or false"
	case "slice":
		return "an array"
	case "struct":
		return "an object"
	}
	return k
}

// need returns the string field's value, or an error naming it.
func need(v *string, field string) (string, error) {
	if v == nil {
		return "", fmt.Errorf("field %q is required", field)
	}
	return *v, nil
}

// message is a prompt, steer or follow-up's text (templates and skills
// expanded) and images as one user message.
func (r *RPC) message(c *rpcCommand) (ai.Message, error) {
	text, err := need(c.Message, "message")
	if err != nil {
		return ai.Message{}, err
	}
	if text, err = r.host.Expand(text); err != nil {
		return ai.Message{}, err
	}
	m := ai.UserText(text, r.now().UnixMilli())
	for i, img := range c.Images {
		if img.Data == "" || !strings.HasPrefix(img.MimeType, "image/") {
			return ai.Message{}, fmt.Errorf("images[%d]: give {\"type\":\"image\",\"data\":BASE64,\"mimeType\":\"image/png\"}", i)
		}
		if err := r.checkImage(i, img); err != nil {
			return ai.Message{}, err
		}
		m.Content = append(m.Content, ai.ImageContent(img.Data, img.MimeType))
	}
	return m, nil
}

// checkImage refuses an image run would refuse as an @file, before it
// reaches the session: data that is not base64, is not a png, jpeg, gif
// or webp image, is not the image mimeType says, or is one a model
// refuses (the host's check).
func (r *RPC) checkImage(i int, img rpcImage) error {
	what := fmt.Sprintf("images[%d]", i)
	data, err := base64.StdEncoding.DecodeString(img.Data)
	if err != nil {
		return fmt.Errorf("%s: data is not base64: give the image's bytes in standard base64 (with padding)", what)
	}
	mime := tools.ImageMime(data)
	switch {
	case mime == "":
		return fmt.Errorf("%s: data is not a png, jpeg, gif or webp image: give one of those", what)
	case mime != img.MimeType:
		return fmt.Errorf("%s: mimeType is %q but the data is a %s image: give mimeType %q", what, img.MimeType, strings.TrimPrefix(mime, "image/"), mime)
	}
	return r.host.CheckImage(what, mime, data)
}

func (r *RPC) cmdPrompt(_ context.Context, c *rpcCommand) (any, error) {
	switch c.StreamingBehavior {
	case "", "steer", "followUp":
	default:
		return nil, fmt.Errorf("streamingBehavior %q: use \"steer\" or \"followUp\"", c.StreamingBehavior)
	}
	m, err := r.message(c)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	if r.op == nil {
		rt := r.cur.Runtime
		r.mu.Unlock()
		// A Runtime whose session write failed takes no prompt: said here,
		// since a run that never starts writes no event.
		if err := rt.Flush(context.Background()); err != nil {
			return nil, err
		}
		// Said before the run starts, so it precedes the run's events.
		r.reply(c.ID, "prompt", map[string]string{"disposition": "started"}, nil)
		r.start([]ai.Message{m})
		return nil, errAnswered
	}
	r.mu.Unlock()
	if c.StreamingBehavior == "" {
		return nil, errors.New("Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message.")
	}
	return r.enqueue(m, c.StreamingBehavior == "followUp")
}

// cmdQueue queues a steer or follow-up for the run going on; while idle,
// as pi, for the next prompt, which delivers it after its own message.
func (r *RPC) cmdQueue(c *rpcCommand, followUp bool) (any, error) {
	m, err := r.message(c)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	if r.op == nil {
		if followUp {
			r.idleFollowUp = append(r.idleFollowUp, m)
		} else {
			r.idleSteer = append(r.idleSteer, m)
		}
		steer, follow := texts(r.idleSteer), texts(r.idleFollowUp)
		r.mu.Unlock()
		r.queueUpdate(steer, follow)
		return map[string]string{"disposition": "queued"}, nil
	}
	r.mu.Unlock()
	return r.enqueue(m, followUp)
}

func texts(msgs []ai.Message) []string {
	out := make([]string, 0, len(msgs))
	for _, m := range msgs {
		out = append(out, m.Text())
	}
	return out
}

// queueUpdate writes a queue_update the rpc mode makes itself (the
// queue of the next prompt).
func (r *RPC) queueUpdate(steering, followUp []string) {
	_, stream := r.current()
	stream.write(loop.Event{Type: loop.QueueUpdate, Steering: steering, FollowUp: followUp})
}

// enqueue gives m to the running run; a run that no longer takes input
// (it is ending, or a compaction is going on) gets it as the next run.
func (r *RPC) enqueue(m ai.Message, followUp bool) (any, error) {
	queued := map[string]string{"disposition": "queued"}
	r.mu.Lock()
	defer r.mu.Unlock()
	op := r.op
	if op == nil {
		r.launch([]ai.Message{m})
		return map[string]string{"disposition": "started"}, nil
	}
	if !op.compact {
		ctrl := op.rt.Control()
		send := ctrl.Steer
		if followUp {
			send = ctrl.FollowUp
		}
		err := send(m)
		if err == nil {
			return queued, nil
		}
		if !errors.Is(err, agent.ErrNotRunning) {
			return nil, err
		}
	}
	r.next = append(r.next, m)
	return queued, nil
}

// cmdAbort ends the run or compaction going on and answers once it has
// settled (its messages in the session); queued prompts are dropped.
// Until then a write waits only a bounded time for its reader
// (RPCOptions.Bound): a client that stopped reading does not keep the
// abort from ending the run.
func (r *RPC) cmdAbort(_ context.Context, c *rpcCommand) (any, error) {
	r.mu.Lock()
	op := r.op
	r.next = nil
	r.mu.Unlock()
	if op == nil {
		return nil, nil
	}
	r.bound(true)
	op.cancel()
	op.rt.Control().Abort()
	<-op.done
	r.reply(c.ID, "abort", nil, nil)
	r.bound(false)
	return nil, errAnswered
}

func (r *RPC) cmdClearQueue(_ context.Context, _ *rpcCommand) (any, error) {
	out := struct {
		Steering []string `json:"steering"`
		FollowUp []string `json:"followUp"`
	}{[]string{}, []string{}}
	r.mu.Lock()
	op, next := r.op, r.next
	r.next = nil
	idleS, idleF := r.idleSteer, r.idleFollowUp
	r.idleSteer, r.idleFollowUp = nil, nil
	r.mu.Unlock()
	for _, m := range idleS {
		out.Steering = append(out.Steering, m.Text())
	}
	for _, m := range idleF {
		out.FollowUp = append(out.FollowUp, m.Text())
	}
	if op == nil {
		r.queueUpdate([]string{}, []string{}) // as pi, also when nothing was queued
	}
	if op != nil {
		s, f := op.rt.Control().ClearQueue()
		for _, m := range s {
			out.Steering = append(out.Steering, m.Text())
		}
		for _, m := range f {
			out.FollowUp = append(out.FollowUp, m.Text())
		}
	}
	for _, m := range next {
		out.FollowUp = append(out.FollowUp, m.Text())
	}
	return out, nil
}

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

func (r *RPC) cmdGetState(_ context.Context, _ *rpcCommand) (any, error) {
	r.mu.Lock()
	cur, op, steering, followUp, next, pending := r.cur, r.op, r.steering, r.followUp, len(r.next), r.pendingModel
	r.mu.Unlock()
	ctrl := cur.Runtime.Control()
	m := modelObject(cur.Model)
	if pending != nil {
		m = modelObject(*pending)
	}
	return rpcState{Model: &m, Thinking: string(r.level()), Streaming: op != nil && !op.compact && !op.bash, Compacting: op != nil && op.compact,
		SteeringMode: string(steering), FollowUpMode: string(followUp), SessionFile: cur.File,
		SessionID: cur.Runtime.Session().Header().ID, SessionName: cur.Runtime.Name(), AutoCompaction: r.autoCompaction(),
		MessageCount: len(contextMessages(cur.Runtime.Path())), Pending: ctrl.Pending() + next}, nil
}

// cmdGetMessages answers pi's agent messages: the context of the
// session's path as the next request would start from it (after a
// compaction its summary, then the messages kept), the messages of a run
// going on included once they ended.
func (r *RPC) cmdGetMessages(_ context.Context, _ *rpcCommand) (any, error) {
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
		b, _ := json.Marshal(v)
		m.Extra[k] = b
	}
	if t, err := time.Parse(time.RFC3339Nano, e.Timestamp); err == nil {
		m.Extra["timestamp"] = json.RawMessage(strconv.FormatInt(t.UnixMilli(), 10))
	}
	return m
}

func (r *RPC) cmdQueueMode(c *rpcCommand, followUp bool) (any, error) {
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

// startOp claims the one operation slot for op (a bash command or a
// compaction in the background) on the current Runtime, with a context
// of its own that op.cancel ends, or answers busy while another holds it.
func (r *RPC) startOp(op rpcOp) (*rpcOp, context.Context, error) {
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
func (r *RPC) cmdCompact(_ context.Context, c *rpcCommand) (any, error) {
	if op := r.busy(); op != nil && !op.compact && !op.bash {
		r.abortOp()
	}
	op, ctx, err := r.startOp(rpcOp{compact: true})
	if err != nil {
		return nil, err
	}
	rt := op.rt
	_, stream := r.current()
	stream.write(loop.Event{Type: loop.CompactionStart, Compaction: &loop.CompactionInfo{Reason: "manual"}})
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
		stream.write(loop.Event{Type: loop.CompactionEnd, Compaction: end})
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

func (r *RPC) cmdAutoCompaction(_ context.Context, c *rpcCommand) (any, error) {
	if c.Enabled == nil {
		return nil, errors.New(`field "enabled" is required (true or false)`)
	}
	if op := r.busy(); op != nil {
		if op.compact || op.bash {
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
func (r *RPC) autoCompaction() bool {
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
func (r *RPC) cmdAutoRetry(_ context.Context, c *rpcCommand) (any, error) {
	if c.Enabled == nil {
		return nil, errors.New(`field "enabled" is required (true or false)`)
	}
	r.retry.SetEnabled(*c.Enabled)
	return nil, nil
}

// cmdAbortRetry cancels the wait before a pending retry: the request
// fails with its last error (auto_retry_end says "Retry cancelled").
// Without one pending it does nothing, as pi.
func (r *RPC) cmdAbortRetry(_ context.Context, _ *rpcCommand) (any, error) {
	r.retry.CancelWait()
	return nil, nil
}

func (r *RPC) cmdStats(_ context.Context, _ *rpcCommand) (any, error) {
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
		if n, ok := contextTokens(msgs); ok || len(msgs) == 0 {
			// An empty session's context is 0 tokens, as pi says.
			p := float64(n) * 100 / float64(w)
			out.ContextUsage.Tokens, out.ContextUsage.Percent = &n, &p
		}
	}
	return out, nil
}
