package agent

import (
	"fmt"
	"slices"

	"gopi/pkg/ai"
	"gopi/pkg/loop"
)

// onLoopEvent commits complete messages, settles the run's input, tags a
// loop event with its run and dispatches it.
func (a *Agent) onLoopEvent(run *activeRun, commit func(ai.Message) error, e loop.Event) {
	if e.Type == loop.MessageStart && commit != nil && e.Message != nil && complete(e.Message) {
		// A complete message's start would show it before it is durable.
		held := e
		run.held = &held
		return
	}
	if e.Type == loop.AgentStart {
		run.started = true
	}
	if e.Type == loop.MessageEnd {
		if e.Message.Role == ai.RoleAssistant {
			run.asked++
		}
		if commit != nil && run.commitErr == nil {
			run.commit(commit, e.Message)
		}
	}
	a.settle(run, e)
	held := run.held
	if e.Type == loop.MessageEnd {
		run.held = nil
	}
	if run.commitErr != nil {
		// What was not committed is never reported: no message or turn
		// ends after the failed commit (a streamed answer whose commit
		// failed has had its start and deltas, never its end), and
		// agent_end lists only the committed messages.
		switch e.Type {
		case loop.MessageStart, loop.MessageUpdate, loop.MessageEnd, loop.TurnEnd:
			return
		case loop.AgentEnd:
			e.Messages = e.Messages[:min(run.committed, len(e.Messages))]
		}
	}
	if e.Type == loop.MessageEnd {
		if held != nil {
			a.emit(Event{RunID: run.id, Event: *held})
		}
		run.reported = append(run.reported, *e.Message)
	}
	a.emit(Event{RunID: run.id, Event: e})
}

// complete tells a message that starts whole (a prompt, a tool result, an
// error or abort message the loop or the Agent made) from the streamed
// answer a model is still writing, whose start opens its stream.
func complete(m *ai.Message) bool {
	return m.Role != ai.RoleAssistant || m.StopReason != ""
}

// commit hands one message to the Commit hook. An error stops the run; a
// panic marks the hook broken and goes on unwinding the loop, so that the
// lifecycle wrapper ends the run (the message counts as not committed:
// whether the hook kept it is unknown, so it is never reported).
func (run *activeRun) commit(commit func(ai.Message) error, m *ai.Message) {
	defer func() {
		if p := recover(); p != nil {
			run.commitPanicked = true
			panic(p)
		}
	}()
	if err := commit(m.Clone()); err != nil {
		run.commitErr = err
		run.cancel(err)
		return
	}
	run.committed++
}

// settle stops the run from accepting queued input once its outcome is
// settled: at agent_end, at a failed or aborted turn, at a turn_end after
// which the run is cancelled (the loop checks that next and ends aborted),
// and at the turn_end of the last allowed step (the loop ends with
// maxSteps without asking the queues). Steer and FollowUp then fail with
// ErrNotRunning instead of queueing input nobody would read; what was
// queued before is delivered or returned with run_end.
func (a *Agent) settle(run *activeRun, e loop.Event) {
	switch e.Type {
	case loop.AgentEnd:
	case loop.TurnEnd:
		run.turns++
		failed := e.Message != nil && (e.Message.StopReason == ai.StopError || e.Message.StopReason == ai.StopAborted)
		if !failed && run.turns < run.maxSteps && run.ctx.Err() == nil {
			return
		}
	default:
		return
	}
	a.mu.Lock()
	run.accepting = false
	a.mu.Unlock()
}

// lifecycleAfterPanic completes the lifecycle of a run that panicked
// outside the loop's own recovery (a Commit hook, tools whose Specs panic,
// the Agent itself), as pi's runWithLifecycle does: every message already
// reported stays, an error message follows them, then turn_end and
// agent_end (after agent_start and turn_start when the loop failed before
// emitting anything). The message being committed when the hook panicked
// was never reported and is not kept; the error message is committed
// unless the hook is the one that panicked (then it is only reported:
// there is no store left to ask).
func (a *Agent) lifecycleAfterPanic(run *activeRun, opts Options, history []ai.Message, p any) loop.Result {
	err := fmt.Errorf("agent run failed: %v", p)
	commit := opts.Commit
	if run.commitPanicked {
		err, commit = fmt.Errorf("agent run failed: commit panicked: %v", p), nil
	} else if commit != nil {
		commit = commitNoPanic(commit)
	}
	run.cancel(err) // the outcome is settled: queued input is refused from now on
	run.held = nil  // a message whose commit never returned is not reported
	res := loop.Result{Reason: loop.ReasonError, Err: err, Start: len(history), Steps: run.asked}
	msg := ai.Message{Role: ai.RoleAssistant, Content: []ai.Content{}, StopReason: ai.StopError,
		ErrorMessage: err.Error(), Timestamp: opts.Now().UnixMilli()}
	if !run.started {
		// The loop failed before its first event (tools whose Specs
		// panic): the run still opens as every run does, or the state,
		// which follows a run from its agent_start, would ignore it.
		a.onLoopEvent(run, commit, loop.Event{Type: loop.AgentStart})
		a.onLoopEvent(run, commit, loop.Event{Type: loop.TurnStart})
	}
	for _, t := range []loop.EventType{loop.MessageStart, loop.MessageEnd, loop.TurnEnd} {
		a.onLoopEvent(run, commit, loop.Event{Type: t, Message: &msg})
	}
	res.Messages = append(slices.Clip(history), run.reported...)
	for _, m := range res.New() {
		if m.Role == ai.RoleAssistant {
			res.Usage = res.Usage.Add(m.Usage)
		}
	}
	a.onLoopEvent(run, commit, loop.Event{Type: loop.AgentEnd, Messages: res.New()})
	return res
}

// commitNoPanic turns a panic of the hook into a failed commit: the run
// is already being wound up, a second panic must not escape it.
func commitNoPanic(commit func(ai.Message) error) func(ai.Message) error {
	return func(m ai.Message) (err error) {
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("commit panicked: %v", p)
			}
		}()
		return commit(m)
	}
}

// finish releases the run (only if it is still the active one), records
// the transcript and emits run_end. Input the run accepted but never
// delivered goes back to the caller with run_end (Event.Unsent).
func (a *Agent) finish(run *activeRun, res loop.Result) {
	a.mu.Lock()
	unsent := slices.Concat(run.steering, run.followUps)
	run.steering, run.followUps, run.accepting = nil, nil, false
	a.transcript = slices.Clip(res.Messages) // the run's own slice; callers get copies
	if a.active == run {
		a.active = nil
	}
	a.mu.Unlock()
	if len(unsent) > 0 {
		a.diagnose(fmt.Sprintf("run %d ended (%s) with %d queued message(s) not delivered (returned with run_end)", run.id, res.Reason, len(unsent)))
	}
	a.emit(Event{RunID: run.id, Event: loop.Event{Type: RunEnd}, Result: &res, Unsent: unsent}) // emit copies it
	close(run.done)
}
