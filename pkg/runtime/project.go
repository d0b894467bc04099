package runtime

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"gopi/internal/pijson"
	"gopi/pkg/ai"
	"gopi/pkg/loop"
	"gopi/pkg/session"
)

// projector is the model the Agent sees: every request is rebuilt from the
// persisted path plus the run's not-yet-persisted suffix, read at the
// moment of the request (never captured once), within the budget.
type projector struct {
	r *Runtime

	mu     sync.Mutex
	cut    session.Cut // where the previous request's context started
	failed error       // a compaction before the run failed (beforeStart)
}

// tempID is the id prefix of suffix messages in a projection; they are
// never written and never collide with the path's ids.
const tempID = "__runtime_context_"

// snapshot returns the active path and how many transcript messages it holds.
func (r *Runtime) snapshot() ([]session.Entry, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	// Entries are never changed in place and appends go past a clipped
	// slice into new storage, so the snapshot may share them.
	return slices.Clip(r.path), r.persisted
}

// projectPath builds the messages of one request from the transcript the
// loop sends (persisted prefix + suffix) and returns the projected path
// (persisted entries, then the suffix under temporary ids). prev is where
// the previous request's context started: it is kept while it fits.
func (r *Runtime) projectPath(transcript []ai.Message, prev session.Cut) (session.Context, []session.Entry, error) {
	path, err := r.pathWith(transcript)
	if err != nil {
		return session.Context{}, nil, err
	}
	return session.BuildStableContext(path, r.budget(), prev), path, nil
}

// pathWith returns the persisted path followed by the transcript's
// messages not yet persisted, under temporary ids.
func (r *Runtime) pathWith(transcript []ai.Message) ([]session.Entry, error) {
	path, persisted := r.snapshot()
	if persisted > len(transcript) {
		return nil, fmt.Errorf("runtime: %d persisted messages but a transcript of %d", persisted, len(transcript))
	}
	suffix := transcript[persisted:]
	taken := map[string]bool{}
	if len(suffix) > 0 {
		for _, e := range path {
			if strings.HasPrefix(e.ID, "_") { // as every candidate id does
				taken[e.ID] = true
			}
		}
		path = slices.Grow(path, len(suffix))
	}
	parent := ""
	if len(path) > 0 {
		parent = path[len(path)-1].ID
	}
	for i, m := range suffix {
		id := fmt.Sprintf("%s%d", tempID, i)
		for taken[id] {
			id = "_" + id
		}
		taken[id] = true
		e := session.MessageEntry(parent, m)
		e.ID = id
		path = append(path, e)
		parent = id
	}
	return path, nil
}

// budget bounds a request: the window less the answer's room, which is
// --max-tokens when given, else pi's compaction reserve (what pi keeps
// free for the answer), so that a request filled to the limit still
// leaves the model room to answer.
func (r *Runtime) budget() session.Budget {
	b := r.cfg.Budget
	if b.ContextWindow == 0 {
		b.ContextWindow = r.info().ContextWindow
	}
	if b.ReserveOutput == 0 {
		b.ReserveOutput = r.cfg.MaxTokens
	}
	if b.ReserveOutput == 0 {
		b.ReserveOutput = cmp.Or(r.cfg.Compaction.ReserveTokens, session.DefaultReserveTokens)
	}
	return b
}

// Stream projects the request, compacting first when the context would
// not fit whole or passes pi's threshold, and compacts and retries once
// on a context overflow.
func (p *projector) Stream(ctx context.Context, req *ai.Request) iter.Seq[ai.Event] {
	return func(yield func(ai.Event) bool) {
		r := p.r
		c, ok := p.prepare(ctx, req, yield)
		if !ok {
			return
		}
		for retried := false; ; retried = true {
			if be := r.budgetSpent(req.Messages); be != nil {
				// a compaction spent what was left: the request is not sent
				yield(ai.Event{Type: ai.EventError, Err: be})
				return
			}
			// The model and thinking level in use now: a switch during
			// the run reaches its next request.
			u := r.using()
			out := u.request(req, c.Messages)
			overflow, cont := p.forward(ctx, u, &out, !retried && !r.cfg.Compaction.Disabled, yield)
			if !cont || overflow == nil {
				return
			}
			compacted, ok, err := p.compact(ctx, req.Messages, "overflow", true, yield)
			if !ok {
				return
			}
			if err != nil {
				yield(*overflow)
				return
			}
			c = compacted
			p.settle(c, loop.TrimAfterCompaction, "")
		}
	}
}

// budgetSpent checks the run's budget before a request, as the loop
// checks it after each answer: the run's answers in the transcript, and
// what its compactions and retried attempts spent since.
func (r *Runtime) budgetSpent(transcript []ai.Message) *loop.BudgetError {
	if r.limits.Tokens == 0 && r.limits.USD == 0 {
		return nil
	}
	r.mu.Lock()
	from := min(r.runFrom, len(transcript))
	r.mu.Unlock()
	var spent ai.Usage
	for _, m := range transcript[from:] {
		if m.Role == ai.RoleAssistant {
			spent = spent.Add(m.Usage)
		}
	}
	return r.limits.Check(spent)
}

// request is req as u's model is sent it: with msgs, the projected
// context, and the thinking level in use when it differs from the run's.
// A model that takes no images is sent a text saying each was left out
// (as pi 1.6 sends them); the session keeps the images.
func (u inUse) request(req *ai.Request, msgs []ai.Message) ai.Request {
	out := *req
	out.Messages = msgs
	if !u.info.Images {
		out.Messages = ai.WithoutImages(msgs)
	}
	if u.thinking != u.runLevel {
		out.Thinking = u.thinking
	}
	return out
}

// forward streams one request to u's model. With catchOverflow, a context-overflow
// error is held back and returned instead of forwarded. An attempt that
// failed and is sent again is recorded first (recordFailedAttempt).
func (p *projector) forward(ctx context.Context, u inUse, req *ai.Request, catchOverflow bool, yield func(ai.Event) bool) (*ai.Event, bool) {
	r := p.r
	var started *ai.Message // the attempt's message_start, if it came
	elapsed := r.startWatch()
	for e := range u.model.Stream(ctx, req) {
		e = marked(e, u)
		switch {
		case e.Type == ai.EventStart && e.Message != nil:
			m := *e.Message
			started = &m
		case e.Type == ai.EventRetryStart:
			if err := r.recordFailedAttempt(req, started, e.Retry, elapsed); err != nil {
				failStream(ctx, r.info(), r.deps.Now().UnixMilli(), err, yield)
				return nil, false
			}
			started, elapsed = nil, r.startWatch()
		case catchOverflow && e.Type == ai.EventError && ai.ClassOf(e.Err) == ai.ClassContextOverflow:
			held := e
			return &held, true
		}
		if !yield(e) {
			return nil, false
		}
	}
	return nil, true
}

// recordFailedAttempt writes what pi 1.6 writes for an attempt that is
// sent again: the failed answer (an error message with no content, with
// the usage the stream reported, which the run's usage and budget count) and a
// context_edit that leaves it out of every context, then reports the
// edit (entry_appended, with the failed message) before the retry's own
// event. The transcript does not hold the failed answer; the path does,
// as in a file pi wrote.
func (r *Runtime) recordFailedAttempt(req *ai.Request, started *ai.Message, retry *ai.RetryInfo, elapsed func() time.Duration) error {
	info := r.info()
	failed := ai.Message{Role: ai.RoleAssistant, Content: []ai.Content{}, API: info.API,
		Provider: info.Provider, Model: info.ID, StopReason: ai.StopError, Timestamp: r.deps.Now().UnixMilli()}
	if started != nil {
		failed.API, failed.Provider, failed.Model, failed.Timestamp = started.API, started.Provider, started.Model, started.Timestamp
	}
	if retry != nil {
		failed.ErrorMessage, failed.Usage = retry.ErrorMessage, retry.Usage
		if retry.Usage != (ai.Usage{}) {
			r.compactions.count(failed.Provider, failed.Model, retry.Usage) // paid for, though not in the transcript
		}
	}
	if elapsed != nil {
		pijson.AddExtra(&failed.Extra, "durationMs", strconv.AppendInt(nil, elapsed().Milliseconds(), 10))
	}
	level := req.Thinking
	if level == "" {
		level = ai.ThinkingOff
	}
	pijson.AddExtra(&failed.Extra, "thinkingLevel", pijson.AppendString(nil, string(level)))
	stored, err := r.appendEntry(session.MessageEntry("", failed), false)
	if err != nil {
		return err
	}
	edit, err := session.ContextEditEntry("", stored.ID, nil)
	if err != nil {
		return err
	}
	if edit, err = r.appendEntry(edit, false); err != nil {
		return err
	}
	raw, err := edit.MarshalJSON()
	if err != nil {
		return err
	}
	r.agent.Notify(loop.Event{Type: loop.EntryAppended, Entry: raw, Message: stored.Message})
	return nil
}

// startWatch starts a measurement; nil without a Stopwatch.
func (r *Runtime) startWatch() func() time.Duration {
	if r.deps.Stopwatch == nil {
		return nil
	}
	return r.deps.Stopwatch()
}

// compact summarises the path, persists the compaction entry and
// re-projects, reporting compaction_start and compaction_end through the
// Agent. ok is false when the stream has ended (a poisoned session). A
// failed compaction returns err; the caller decides whether that ends the
// stream.
func (p *projector) compact(ctx context.Context, transcript []ai.Message, reason string, willRetry bool, yield func(ai.Event) bool) (session.Context, bool, error) {
	r := p.r
	r.agent.Notify(loop.Event{Type: loop.CompactionStart, Compaction: &loop.CompactionInfo{Reason: reason}})
	entry, usage, err := r.compactPath(ctx, "", reason)
	end := &loop.CompactionInfo{Reason: reason}
	var c session.Context
	var projErr error
	switch {
	case err != nil && ctx.Err() != nil:
		end.Aborted = true // pi: no result and no error message
	case err != nil && reason == "overflow":
		end.ErrorMessage = "Context overflow recovery failed: " + err.Error()
	case err != nil:
		end.ErrorMessage = "Auto-compaction failed: " + err.Error()
	default:
		end.Summary, end.FirstKeptEntryID, end.TokensBefore = entry.Summary, entry.FirstKeptEntryID, int(entry.TokensBefore)
		end.Details, end.WillRetry, end.Usage = entry.Details, willRetry, &usage
		// The context is projected before the end is reported, so that
		// the end says what the context weighs now.
		if c, _, projErr = r.projectPath(transcript, p.lastCut()); projErr == nil {
			end.EstimatedTokensAfter = c.Tokens
		}
	}
	r.agent.Notify(loop.Event{Type: loop.CompactionEnd, Compaction: end})
	var perr *PoisonError
	if errors.As(err, &perr) {
		if yield != nil {
			failStream(ctx, r.info(), r.deps.Now().UnixMilli(), err, yield)
		}
		return session.Context{}, false, nil
	}
	if err != nil {
		return session.Context{}, true, err
	}
	return c, true, projErr
}

// Compact summarises the persisted path now (a user's /compact), with
// focus as additional instructions for the summary, and appends the
// compaction entry. Like Prompt it waits for the operations accepted
// before it; it fails with session.ErrNothingToCompact when there is
// nothing old enough to summarise.
func (r *Runtime) Compact(ctx context.Context, focus string) (session.Entry, error) {
	entry, _, err := r.CompactSpent(ctx, focus)
	return entry, err
}

// CompactSpent is Compact that also returns what the summary requests
// spent (pi's compact answer carries it).
func (r *Runtime) CompactSpent(ctx context.Context, focus string) (session.Entry, ai.Usage, error) {
	prev, done, err := r.accept()
	if err != nil {
		return session.Entry{}, ai.Usage{}, err
	}
	defer close(done)
	<-prev
	return r.compactPath(ctx, focus, "manual")
}

// compactPath compacts the persisted path and appends the entry. A
// summary request that is sent again is reported as pi 1.6 reports it
// (summarization_retry_*, with reason).
func (r *Runtime) compactPath(ctx context.Context, focus, reason string) (session.Entry, ai.Usage, error) {
	path, _ := r.snapshot()
	if len(path) == 0 {
		return session.Entry{}, ai.Usage{}, session.ErrNothingToCompact
	}
	// This compaction's own meter, inside the run's: its usage is the
	// compaction_end event's.
	m := &meter{inner: r.compactions, retry: func(e ai.Event) { r.reportSummaryRetry(e, reason) }}
	reasoning, window := r.info().Reasoning, r.budget().ContextWindow
	if cm := r.cfg.Compaction.Model; cm.ID != "" {
		reasoning = cm.Reasoning
		if cm.ContextWindow > 0 {
			window = cm.ContextWindow
		}
	}
	entry, err := session.Compact(ctx, m, path, session.CompactOptions{
		KeepRecentTokens:   r.cfg.Compaction.KeepRecentTokens,
		ReserveTokens:      r.cfg.Compaction.ReserveTokens,
		CustomInstructions: focus,
		Estimate:           r.cfg.Budget.Estimate,
		Now:                r.deps.Now,
		Reasoning:          reasoning,
		MaxInputTokens:     summaryInput(window, r.cfg.Compaction.ReserveTokens),
	})
	if err != nil {
		return session.Entry{}, ai.Usage{}, err
	}
	entry, err = r.appendEntry(entry, false)
	return entry, m.total(), err
}

// summaryInput is how much history one summary request may carry: the
// window less the summary's own room (reserve, pi's default when unset);
// 0 (no bound) when the window is unknown.
func summaryInput(window, reserve int) int {
	if reserve <= 0 {
		reserve = session.DefaultReserveTokens
	}
	if window <= 0 {
		return 0
	}
	return max(window-reserve, 1)
}

// failStream ends a stream that never reached the model with an error.
func failStream(ctx context.Context, info ai.Info, now int64, err error, yield func(ai.Event) bool) {
	b := ai.NewBuilder(info, now, yield)
	if b.Start() {
		b.Fail(ctx, classify(err))
	}
}

// classify marks session failures so they map to the session exit code.
func classify(err error) error {
	var perr *PoisonError
	if errors.As(err, &perr) {
		return &ai.ProviderError{Class: ai.ClassSession, Message: err.Error(), Err: err}
	}
	return err
}

// reportSummaryRetry reports a retry of a summary request: retry_start as
// pi's summarization_retry_scheduled and _attempt_start (the adapter
// sends the next attempt when its delay is over), retry_end as
// summarization_retry_finished.
func (r *Runtime) reportSummaryRetry(e ai.Event, reason string) {
	r.notifyMu.Lock()
	defer r.notifyMu.Unlock()
	switch e.Type {
	case ai.EventRetryStart:
		info := ai.RetryInfo{}
		if e.Retry != nil {
			info = *e.Retry
		}
		r.agent.Notify(loop.Event{Type: loop.SummaryRetryScheduled, Retry: &info})
		r.agent.Notify(loop.Event{Type: loop.SummaryRetryAttemptStart, Compaction: &loop.CompactionInfo{Reason: reason}})
	case ai.EventRetryEnd:
		r.agent.Notify(loop.Event{Type: loop.SummaryRetryFinished})
	}
}
