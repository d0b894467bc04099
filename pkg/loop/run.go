package loop

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"gopi/pkg/ai"
)

// errAbortedBeforeRequest explains the assistant message of a run that was
// cancelled before any model request.
var errAbortedBeforeRequest = errors.New("aborted before the model was asked")

type run struct {
	ctx   context.Context
	cfg   Config
	res   Result
	specs []ai.ToolSpec
	// turnDue holds back a later turn's turn_start until its first event
	// that is not a compaction's: pi compacts between turns, after
	// turn_end and before turn_start.
	turnDue bool
}

func newRun(ctx context.Context, cfg Config, history []ai.Message) *run {
	if cfg.MaxSteps <= 0 {
		cfg.MaxSteps = DefaultMaxSteps
	}
	if cfg.ToolGrace <= 0 {
		cfg.ToolGrace = DefaultToolGrace
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Emit == nil {
		cfg.Emit = func(Event) {}
	}
	if cfg.Steering == nil {
		cfg.Steering = func() []ai.Message { return nil }
	}
	if cfg.FollowUp == nil {
		cfg.FollowUp = func() []ai.Message { return nil }
	}
	cfg.Tools = scrubbing(cfg.Tools) // keys never reach an event or the transcript
	r := &run{ctx: ctx, cfg: cfg}
	if cfg.Tools != nil {
		r.specs = cfg.Tools.Specs()
	}
	r.res.Messages = make([]ai.Message, len(history), len(history)+8)
	copy(r.res.Messages, history)
	r.res.Start = len(history)
	if cfg.Notices != nil {
		cfg.Notices(r.emit)
	}
	return r
}

func (r *run) emit(e Event) {
	if r.turnDue && e.Type != CompactionStart && e.Type != CompactionEnd {
		r.turnDue = false
		r.cfg.Emit(Event{Type: TurnStart})
	}
	r.cfg.Emit(e)
}

func (r *run) now() int64 { return r.cfg.Now().UnixMilli() }

// add appends a complete message to the transcript and reports it.
func (r *run) add(m ai.Message) {
	r.res.Messages = append(r.res.Messages, m)
	r.emit(Event{Type: MessageStart, Message: &m})
	r.emit(Event{Type: MessageEnd, Message: &m})
}

func (r *run) run(prompts []ai.Message) {
	if r.cfg.BeforeStart != nil {
		r.cfg.BeforeStart(r.ctx, append(slices.Clip(r.res.Messages), prompts...))
	}
	r.emit(Event{Type: AgentStart})
	r.emit(Event{Type: TurnStart})
	for _, p := range prompts {
		r.add(p)
	}
	pending := r.cfg.Steering()
	first := true
	for {
		more := true
		for more || len(pending) > 0 {
			if !first && len(pending) == 0 {
				r.turnDue = true
			} else if !first {
				r.emit(Event{Type: TurnStart})
			}
			first = false
			for _, p := range pending {
				r.add(p)
			}
			var done bool
			if more, done = r.turn(); done {
				r.end()
				return
			}
			if r.res.Steps >= r.cfg.MaxSteps {
				// Queued input stays queued: the caller discards it.
				r.finish(more)
				return
			}
			if reason, err := r.cfg.Limits.over(r.spent()); reason != "" {
				if more {
					// Spent while the tools ran (Extra: a sub-agent's
					// run): the model is not asked again.
					r.res.Reason, r.res.Err = reason, err
					r.end()
					return
				}
				// The answer stands; queued input stays queued.
				r.finish(false)
				return
			}
			pending = r.cfg.Steering()
		}
		if pending = r.cfg.FollowUp(); len(pending) == 0 {
			break
		}
	}
	r.finish(false)
}

// finish ends a run that did not fail: maxSteps when the model still
// wanted to go on, else stop (or length when the answer was cut short).
func (r *run) finish(wantedMore bool) {
	r.res.Reason = ReasonStop
	if wantedMore {
		r.res.Reason = ReasonMaxSteps
	} else if last, ok := r.res.Final(); ok && last.StopReason == ai.StopLength {
		r.res.Reason = ReasonLength
	}
	r.end()
}

// turn asks the model once and runs the answer's tool calls. more reports
// that the model wants another turn (it called tools); done that the run
// is over (error, aborted) with res.Reason set.
func (r *run) turn() (more, done bool) {
	if err := r.ctx.Err(); err != nil {
		r.abortBeforeRequest(err)
		return false, true
	}
	msg, err := r.ask()
	if be := (*BudgetError)(nil); msg.Role == "" && errors.As(err, &be) {
		r.budgetBeforeRequest(be)
		return false, true
	}
	r.res.Messages = append(r.res.Messages, msg)
	r.emit(Event{Type: MessageEnd, Message: &msg})
	calls := msg.ToolCalls()
	be := (*BudgetError)(nil)
	switch {
	case errors.As(err, &be) && r.ctx.Err() == nil:
		// Cut short in mid-answer: a budget this run shares (a
		// sub-agents' tree) was spent by another run's answer.
		r.fail(be.Reason, be.Err, msg, calls)
		return false, true
	case msg.StopReason == ai.StopError:
		r.fail(ReasonError, err, msg, calls)
		return false, true
	case msg.StopReason == ai.StopAborted || r.ctx.Err() != nil:
		// A model that ignored cancellation still ends the run aborted.
		r.fail(ReasonAborted, r.ctxErr(err), msg, calls)
		return false, true
	}
	if len(calls) == 0 {
		r.emit(Event{Type: TurnEnd, Message: &msg})
		return false, false
	}
	if reason, err := r.cfg.Limits.over(r.spent()); reason != "" {
		r.fail(reason, err, msg, calls)
		return false, true
	}
	results := r.runTools(calls)
	r.emit(Event{Type: TurnEnd, Message: &msg, ToolResults: results})
	if err := r.ctx.Err(); err != nil {
		r.res.Reason, r.res.Err = ReasonAborted, err
		return false, true
	}
	return true, false
}

func (r *run) ctxErr(err error) error {
	if e := r.ctx.Err(); e != nil {
		return e
	}
	if err == nil {
		return context.Canceled
	}
	return err
}

// fail ends the run after a failed or aborted answer; tool calls the answer
// made get a synthesized error result each, so every call has one result.
func (r *run) fail(reason Reason, err error, msg ai.Message, calls []ai.Content) {
	var results []ai.Message
	for _, c := range calls {
		res := r.skippedResult(c, fmt.Sprintf("Tool call skipped: the run ended (%s) before it ran.", reason))
		r.add(res)
		results = append(results, res)
	}
	r.emit(Event{Type: TurnEnd, Message: &msg, ToolResults: results})
	r.res.Reason, r.res.Err = reason, err
}

func (r *run) abortBeforeRequest(err error) {
	msg := ai.Message{Role: ai.RoleAssistant, StopReason: ai.StopAborted,
		ErrorMessage: errAbortedBeforeRequest.Error(), Timestamp: r.now(), Content: []ai.Content{}}
	r.add(msg)
	r.emit(Event{Type: TurnEnd, Message: &msg})
	r.res.Reason, r.res.Err = ReasonAborted, err
}

// budgetBeforeRequest ends a run whose budget was found spent before a
// request was sent (a compaction spent it), as a cancellation before a
// request ends it: an assistant message with no content says why.
func (r *run) budgetBeforeRequest(be *BudgetError) {
	r.res.Steps-- // no request was made
	msg := ai.Message{Role: ai.RoleAssistant, StopReason: ai.StopError,
		ErrorMessage: be.Error() + "; the next request was not sent", Timestamp: r.now(), Content: []ai.Content{}}
	r.setThinkingLevel(&msg)
	r.add(msg)
	r.emit(Event{Type: TurnEnd, Message: &msg})
	r.res.Reason, r.res.Err = be.Reason, be.Err
}

// spent sums the usage of the run's answers so far.
func (r *run) spent() ai.Usage {
	var u ai.Usage
	for _, m := range r.res.New() {
		if m.Role == ai.RoleAssistant {
			u = u.Add(m.Usage)
		}
	}
	return u
}

func (r *run) end() {
	for _, m := range r.res.New() {
		if m.Role == ai.RoleAssistant {
			r.res.Usage = r.res.Usage.Add(m.Usage)
		}
	}
	r.emit(Event{Type: AgentEnd, Messages: r.res.New()})
}
