package runtime

import (
	"context"
	"strings"

	"gopi/pkg/ai"
	"gopi/pkg/loop"
	"gopi/pkg/session"
)

// Nothing is left out of the context without saying so. A request whose
// path does not fit the window is compacted first (as when it passes pi's
// threshold); only when compaction is off, fails or is not enough are
// the oldest turns left out, and then a context_trimmed event says which,
// once for every new cut. The cut stays where it is for the following
// requests while they fit, so that the start of the context, which
// providers cache, does not change from one step to the next.

// prepare projects the request, compacts first when that is due, and
// announces what the request leaves out. ok is false when the stream has
// ended (the request failed before the model).
func (p *projector) prepare(ctx context.Context, req *ai.Request, yield func(ai.Event) bool) (session.Context, bool) {
	r := p.r
	prev := p.lastCut()
	c, path, err := r.projectPath(req.Messages, prev)
	if err != nil {
		failStream(ctx, r.info(), r.deps.Now().UnixMilli(), err, yield)
		return session.Context{}, false
	}
	reason, detail := loop.TrimCompactionDisabled, ""
	failedBefore := p.takeFailedBefore()
	switch {
	case !r.compactionDue(c, path, prev):
	case failedBefore != nil:
		// The compaction before the run failed a moment ago: it is not
		// asked for again for the same context.
		reason, detail = loop.TrimCompactionFailed, failedBefore.Error()
	default:
		// A failed compaction is reported in its end event; the request
		// then goes out with the oldest turns left out, and says so.
		compacted, ok, err := p.compact(ctx, req.Messages, "threshold", false, yield)
		if !ok {
			return session.Context{}, false
		}
		if err == nil {
			c, reason = compacted, loop.TrimAfterCompaction
		} else {
			reason, detail = loop.TrimCompactionFailed, err.Error()
		}
	}
	p.settle(c, reason, detail)
	return c, true
}

// beforeStart compacts the persisted path before a run starts when the
// context its first request would carry (the history and the prompts)
// passes pi's threshold, as pi checks before a prompt: the compaction's
// events then come before agent_start and its entry before the prompt's,
// where pi has them. A compaction the first request finds due later (a
// context that fits by this count and not by the request's estimate)
// still happens there.
func (p *projector) beforeStart(ctx context.Context, transcript []ai.Message) {
	r := p.r
	if r.cfg.Compaction.Disabled || ctx.Err() != nil {
		return
	}
	path, err := r.pathWith(transcript)
	if err != nil || !session.ShouldCompact(session.ContextTokens(path), r.budget().ContextWindow, r.cfg.Compaction.ReserveTokens) {
		return // an error is the first request's to report
	}
	if _, _, err := p.compact(ctx, transcript, "threshold", false, nil); err != nil {
		p.mu.Lock()
		p.failed = err
		p.mu.Unlock()
	}
}

// takeFailedBefore returns, once, the error of a compaction tried before
// the run started.
func (p *projector) takeFailedBefore() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	err := p.failed
	p.failed = nil
	return err
}

// compactionDue reports that compaction should run before the request:
// when the context would have to leave out more than the previous
// request did (nothing is dropped silently to fit), or, when it leaves
// out nothing, when pi's usage-based count passes window − reserve.
func (r *Runtime) compactionDue(c session.Context, path []session.Entry, prev session.Cut) bool {
	if r.cfg.Compaction.Disabled {
		return false
	}
	if c.Dropped.Messages > 0 {
		return c.Cut != prev
	}
	return session.ShouldCompact(session.ContextTokens(path), r.budget().ContextWindow, r.cfg.Compaction.ReserveTokens)
}

func (p *projector) lastCut() session.Cut {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cut
}

// settle remembers where c starts and, when that is a new cut that leaves
// something out, reports the context_trimmed event through the Agent.
func (p *projector) settle(c session.Context, reason, detail string) {
	p.mu.Lock()
	prev := p.cut
	p.cut = c.Cut
	p.mu.Unlock()
	if c.Dropped.Messages == 0 || c.Cut == prev {
		return
	}
	info := &loop.TrimInfo{
		Reason: reason, ContextWindow: p.r.budget().ContextWindow,
		Turns: c.Dropped.Turns, Messages: c.Dropped.Messages,
		FirstDroppedEntryID: persistedID(c.Dropped.EntryIDs[0]), FirstKeptEntryID: persistedID(c.Cut.ID),
		Tokens: c.Tokens, ErrorMessage: detail,
	}
	p.r.agent.Notify(loop.Event{Type: loop.ContextTrimmed, Trim: info})
}

// persistedID hides the temporary id of a message not yet written.
func persistedID(id string) string {
	if strings.Contains(id, tempID) {
		return ""
	}
	return id
}
