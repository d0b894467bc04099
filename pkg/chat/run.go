package chat

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"gopi/pkg/agent"
	"gopi/pkg/ai"
	"gopi/pkg/loop"
	"gopi/pkg/mode"
	"gopi/pkg/oneline"
	"gopi/pkg/runtime"
	"gopi/pkg/session"
)

// prompt expands text (templates, /skill:name) and starts a run with it
// in the background; the line editor stays live for steering.
func (c *Chat) prompt(ctx context.Context, text string) { c.promptWith(ctx, text, nil) }

// promptWith sends text, expanded, with images attached after it.
func (c *Chat) promptWith(ctx context.Context, text string, images []ai.Content) {
	expanded, err := c.deps.Expand(text)
	if err != nil {
		c.scr.line(c.pal.red(err.Error()))
		return
	}
	if expanded == text && looksLikeCommand(text) {
		c.scr.line(c.pal.red("unknown command " + strings.Fields(text)[0] + " (no such command, prompt template or skill): /help lists the commands"))
		return
	}
	msg := ai.UserText(expanded, c.opts.Now().UnixMilli())
	msg.Content = append(msg.Content, images...)
	c.background(ctx, func(ctx context.Context, rt *runtime.Runtime) func() {
		res, err := rt.Prompt(ctx, msg)
		c.rend.finish()
		return func() { c.report(rt, &res, err) }
	})
}

// looksLikeCommand: /word, not a path such as /etc/hosts.
func looksLikeCommand(text string) bool {
	word := strings.Fields(text)[0]
	return strings.HasPrefix(word, "/") && !strings.ContainsAny(word[1:], "/.")
}

// background runs fn as the chat's one active operation. What fn
// returns writes its outcome once the chat is idle again, so that a key
// pressed after the outcome is shown never reaches the finished run.
func (c *Chat) background(ctx context.Context, fn func(context.Context, *runtime.Runtime) func()) {
	ctx, cancel := context.WithCancel(ctx)
	c.mu.Lock()
	op := &operation{cancel: cancel, done: make(chan struct{}), rt: c.cur.Runtime}
	c.op = op
	c.mu.Unlock()
	c.updatePrompt()
	go func() {
		defer close(op.done)
		defer cancel()
		defer c.recoverPanic()
		c.settle(ctx, fn(ctx, op.rt))
	}()
}

// settle ends the operation and writes its outcome; lines typed as it
// ended become the next prompt.
func (c *Chat) settle(ctx context.Context, outcome func()) {
	c.mu.Lock()
	for _, q := range c.queued {
		c.scr.line(c.pal.dim("not sent (the run ended first): " + oneline.Text(q.text, 60)))
	}
	next := strings.Join(c.next, "\n")
	c.op, c.queued, c.next, c.activity = nil, nil, nil, ""
	c.mu.Unlock()
	c.updatePrompt()
	outcome()
	switch {
	case next == "":
	case ctx.Err() != nil:
		c.scr.line(c.pal.dim("not sent (the run was aborted): " + oneline.Text(next, 60)))
	default:
		c.prompt(c.ctx, next)
	}
}

// queue sends a line to the active run as steering or a follow-up,
// expanded as a prompt is (templates, /skill:name). A run that no longer
// takes input gets it as the next prompt instead (expanded then). The
// line is listed as queued before it is sent, so that the loop taking
// it at once finds it.
func (c *Chat) queue(text string, followUp bool) {
	if strings.TrimSpace(text) == "" {
		return
	}
	expanded, err := c.deps.Expand(text)
	if err != nil {
		c.scr.line(c.pal.red(err.Error()))
		return
	}
	c.mu.Lock()
	op := c.op
	if op == nil {
		c.next = append(c.next, text)
		c.mu.Unlock()
		return
	}
	q := queuedInput{text: expanded, followUp: followUp}
	c.queued = append(c.queued, q)
	c.mu.Unlock()
	ctrl := op.rt.Control()
	msg := ai.UserText(expanded, c.opts.Now().UnixMilli())
	send, kind := ctrl.Steer, "steering"
	if followUp {
		send, kind = ctrl.FollowUp, "follow-up"
	}
	err = send(msg)
	if err == nil {
		c.scr.line(c.pal.dim(fmt.Sprintf("queued (%s): %s", kind, oneline.Text(expanded, 60))))
		return
	}
	c.mu.Lock()
	c.unqueue(expanded)
	if errors.Is(err, agent.ErrNotRunning) {
		c.next = append(c.next, text)
	}
	c.mu.Unlock()
	if errors.Is(err, agent.ErrNotRunning) {
		c.scr.line(c.pal.dim("queued as the next prompt: " + oneline.Text(text, 60)))
		return
	}
	c.scr.line(c.pal.red(err.Error()))
}

// unqueue removes the first queued line with text; the caller holds mu.
func (c *Chat) unqueue(text string) bool {
	for i, q := range c.queued {
		if q.text == text {
			c.queued = append(c.queued[:i:i], c.queued[i+1:]...)
			return true
		}
	}
	return false
}

// took is told by the renderer that the loop took a queued message.
func (c *Chat) took(text string) {
	c.mu.Lock()
	c.unqueue(text)
	c.mu.Unlock()
	c.scr.line(c.pal.cyan("› " + oneline.Text(text, c.width()-2)))
}

// report writes how a run ended and the status line.
func (c *Chat) report(rt *runtime.Runtime, res *runtime.Result, err error) {
	class := mode.Classify(res, err)
	switch {
	case class == ai.ClassAborted:
		c.scr.line(c.pal.red("aborted") + c.pal.dim(" (the session keeps what was said; the next prompt continues from it)"))
	case err != nil:
		c.scr.line(c.pal.red(errorLine(class, err)))
	case res.Reason == loop.ReasonError && res.Err != nil:
		c.scr.line(c.pal.red(errorLine(class, res.Err)))
	case res.Reason == loop.ReasonMaxSteps:
		c.scr.line(c.pal.red("stopped: the step limit was reached"))
	case (res.Reason == loop.ReasonBudgetTokens || res.Reason == loop.ReasonBudgetUSD) && res.Err != nil:
		c.scr.line(c.pal.red("stopped: " + res.Err.Error()))
	case res.Reason == loop.ReasonLength:
		c.scr.line(c.pal.dim("(the answer hit the output token limit)"))
	}
	c.scr.line(c.pal.dim(c.statusLine(rt, res.Usage, res.Messages)))
}

// errorLine names a failed run's class once: a provider's error says
// its class itself ("server (HTTP 500): …"), others get it in front.
func errorLine(class ai.Class, err error) string {
	msg := err.Error()
	if strings.HasPrefix(msg, string(class)+":") || strings.HasPrefix(msg, string(class)+" (") {
		return "error: " + msg
	}
	return fmt.Sprintf("error (%s): %s", class, msg)
}

// statusLine is tokens in and out, cost, and how full the context is.
func (c *Chat) statusLine(rt *runtime.Runtime, u ai.Usage, msgs []ai.Message) string {
	in := u.Input + u.CacheRead + u.CacheWrite
	s := fmt.Sprintf("↑%s ↓%s · %s · ctx %s", formatTokens(in), formatTokens(u.Output), formatCost(u.Cost.Total), c.fill(rt, msgs))
	return s
}

// fill is the context fill against the window, e.g. 12.3k/200k.
func (c *Chat) fill(rt *runtime.Runtime, msgs []ai.Message) string {
	n, ok := ai.ContextTokens(msgs)
	if !ok {
		n = int64(session.BuildContext(rt.Path(), session.Budget{}).Tokens)
	}
	window := c.current().Model.ContextWindow
	if window <= 0 {
		return formatTokens(n)
	}
	return fmt.Sprintf("%s/%s", formatTokens(n), formatTokens(int64(window)))
}

// compact summarises the path in the background (Ctrl-C aborts it).
func (c *Chat) compact(ctx context.Context, focus string) {
	c.scr.line(c.pal.dim("compacting the context…"))
	c.background(ctx, func(ctx context.Context, rt *runtime.Runtime) func() {
		e, err := rt.Compact(ctx, focus)
		return func() { c.compacted(e, err) }
	})
}

// compacted writes how a /compact ended.
func (c *Chat) compacted(e session.Entry, err error) {
	switch {
	case errors.Is(err, session.ErrNothingToCompact):
		c.scr.line(c.pal.dim("nothing to compact yet"))
	case err != nil:
		c.scr.line(c.pal.red("compaction failed: " + err.Error()))
	default:
		c.scr.line(c.pal.dim(fmt.Sprintf("compacted: %s tokens summarised (entry %s)", formatTokens(e.TokensBefore), e.ID)))
	}
}
