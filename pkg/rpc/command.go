package rpc

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"gopi/pkg/agent"
	"gopi/pkg/ai"
	"gopi/pkg/loop"
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
var rpcHandlers map[string]func(r *Server, ctx context.Context, c *rpcCommand) (any, error)

func init() {
	rpcHandlers = map[string]func(r *Server, ctx context.Context, c *rpcCommand) (any, error){
		"prompt":                        (*Server).cmdPrompt,
		"steer":                         func(r *Server, _ context.Context, c *rpcCommand) (any, error) { return r.cmdQueue(c, false) },
		"follow_up":                     func(r *Server, _ context.Context, c *rpcCommand) (any, error) { return r.cmdQueue(c, true) },
		"abort":                         (*Server).cmdAbort,
		"clear_queue":                   (*Server).cmdClearQueue,
		"new_session":                   (*Server).cmdNewSession,
		"get_state":                     (*Server).cmdGetState,
		"get_messages":                  (*Server).cmdGetMessages,
		"set_model":                     (*Server).cmdSetModel,
		"cycle_model":                   (*Server).cmdCycleModel,
		"get_available_models":          (*Server).cmdModels,
		"set_thinking_level":            (*Server).cmdSetThinking,
		"cycle_thinking_level":          (*Server).cmdCycleThinking,
		"get_available_thinking_levels": (*Server).cmdThinkingLevels,
		"set_steering_mode":             func(r *Server, _ context.Context, c *rpcCommand) (any, error) { return r.cmdQueueMode(c, false) },
		"set_follow_up_mode":            func(r *Server, _ context.Context, c *rpcCommand) (any, error) { return r.cmdQueueMode(c, true) },
		"compact":                       (*Server).cmdCompact,
		"set_auto_compaction":           (*Server).cmdAutoCompaction,
		"set_auto_retry":                (*Server).cmdAutoRetry,
		"abort_retry":                   (*Server).cmdAbortRetry,
		"bash":                          (*Server).cmdBash,
		"abort_bash":                    (*Server).cmdAbortBash,
		"get_session_stats":             (*Server).cmdStats,
		"export_html":                   (*Server).cmdExport,
		"switch_session":                (*Server).cmdSwitch,
		"fork":                          (*Server).cmdFork,
		"clone":                         (*Server).cmdClone,
		"get_fork_messages":             (*Server).cmdForkMessages,
		"get_entries":                   (*Server).cmdEntries,
		"get_tree":                      (*Server).cmdTree,
		"get_last_assistant_text":       (*Server).cmdLastText,
		"set_session_name":              (*Server).cmdSetName,
		"get_commands":                  (*Server).cmdCommands,
	}
}

// errAnswered: the handler writes its response itself.
var errAnswered = errors.New("answered")

// handle decodes one line and answers it. Bad input is answered with
// success false and never stops the mode.
func (r *Server) handle(ctx context.Context, line []byte) {
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
func (r *Server) message(c *rpcCommand) (ai.Message, error) {
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
func (r *Server) checkImage(i int, img rpcImage) error {
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

func (r *Server) cmdPrompt(_ context.Context, c *rpcCommand) (any, error) {
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
func (r *Server) cmdQueue(c *rpcCommand, followUp bool) (any, error) {
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
func (r *Server) queueUpdate(steering, followUp []string) {
	_, stream := r.current()
	stream.Write(loop.Event{Type: loop.QueueUpdate, Steering: steering, FollowUp: followUp})
}

// enqueue gives m to the running run; a run that no longer takes input
// (it is ending, or a compaction is going on) gets it as the next run.
func (r *Server) enqueue(m ai.Message, followUp bool) (any, error) {
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
// (Options.Bound): a client that stopped reading does not keep the
// abort from ending the run.
func (r *Server) cmdAbort(_ context.Context, c *rpcCommand) (any, error) {
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

func (r *Server) cmdClearQueue(_ context.Context, _ *rpcCommand) (any, error) {
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
