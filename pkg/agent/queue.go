package agent

import (
	"slices"

	"gopi/pkg/ai"
	"gopi/pkg/loop"
)

// Steer queues a message for the current run: the loop takes it after the
// running tool batch (or after a text answer) and the model sees it on its
// next request. It fails with ErrNotRunning when no run is active or the
// run has already settled its outcome (its context is done, a turn failed
// or was aborted, or the last allowed step ended). A message it accepts is
// delivered in a later turn of this run or, when the run ends first,
// returned with run_end (Event.Unsent); it is never dropped silently and
// never reaches a later run. Every change of the queues (a message
// queued, or taken by the run) is reported as a queue_update event
// carrying both queues whole.
func (a *Agent) Steer(msg ai.Message) error { return a.enqueue(msg, false) }

// FollowUp queues a message for when the current run would otherwise
// stop; the same run then goes on with it. It is refused, delivered or
// returned as Steer says.
func (a *Agent) FollowUp(msg ai.Message) error { return a.enqueue(msg, true) }

// SteerText and FollowUpText queue text as a user message.
func (a *Agent) SteerText(text string) error {
	return a.Steer(ai.UserText(text, a.opts.Now().UnixMilli()))
}

// FollowUpText queues text as a follow-up user message.
func (a *Agent) FollowUpText(text string) error {
	return a.FollowUp(ai.UserText(text, a.opts.Now().UnixMilli()))
}

func (a *Agent) enqueue(msg ai.Message, followUp bool) error {
	a.mu.Lock()
	run := a.active
	if run == nil || !run.accepting || run.ctx.Err() != nil {
		a.mu.Unlock()
		// A cancelled run ends aborted without asking the queues again.
		return ErrNotRunning
	}
	if followUp {
		run.followUps = append(run.followUps, msg.Clone())
	} else {
		run.steering = append(run.steering, msg.Clone())
	}
	report := a.queueChanged(run)
	a.mu.Unlock()
	report()
	return nil
}

// queueChanged takes a snapshot of run's queues (a.mu held) and returns
// the function that reports it as a queue_update, to be called once a.mu
// is released (a subscriber may steer). Snapshots are numbered: one taken
// before another that was already reported is dropped, so the last
// queue_update always holds the queues as they are.
func (a *Agent) queueChanged(run *activeRun) func() {
	a.queueVersion++
	v := a.queueVersion
	e := Event{RunID: run.id, Event: loop.Event{Type: loop.QueueUpdate,
		Steering: queueTexts(run.steering), FollowUp: queueTexts(run.followUps)}}
	return func() {
		a.emitIf(e, func() bool {
			if v <= a.queueSent {
				return false
			}
			a.queueSent = v
			return true
		})
	}
}

func queueTexts(ms []ai.Message) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Text()
	}
	return out
}

// take removes the messages a boundary takes from q, as mode says.
func take(q *[]ai.Message, mode QueueMode) []ai.Message {
	if len(*q) == 0 {
		return nil
	}
	n := 1
	if mode == All {
		n = len(*q)
	}
	out := (*q)[:n:n]
	*q = (*q)[n:]
	return out
}

func (a *Agent) takeSteering(run *activeRun) []ai.Message {
	a.mu.Lock()
	msgs := take(&run.steering, a.opts.SteeringMode)
	report := func() {}
	if len(msgs) > 0 {
		report = a.queueChanged(run)
	}
	a.mu.Unlock()
	report()
	return msgs
}

// takeFollowUp is asked when the run would stop. Steering that arrived
// since the last look still wins; when both queues are empty the run stops
// accepting input, so nothing queued later can be lost silently.
func (a *Agent) takeFollowUp(run *activeRun) []ai.Message {
	a.mu.Lock()
	msgs := take(&run.steering, a.opts.SteeringMode)
	if len(msgs) == 0 {
		msgs = take(&run.followUps, a.opts.FollowUpMode)
	}
	report := func() {}
	if len(msgs) > 0 {
		report = a.queueChanged(run)
	} else {
		run.accepting = false
	}
	a.mu.Unlock()
	report()
	return msgs
}

// ClearQueue removes every queued steering and follow-up message of the
// current run and hands them back (steering, then follow-ups, each in the
// order queued); the change is reported as a queue_update. Without a
// running run both are empty.
func (a *Agent) ClearQueue() (steering, followUp []ai.Message) {
	a.mu.Lock()
	run := a.active
	if run == nil || len(run.steering)+len(run.followUps) == 0 {
		a.mu.Unlock()
		return nil, nil
	}
	steering, followUp = run.steering, run.followUps
	run.steering, run.followUps = nil, nil
	report := a.queueChanged(run)
	a.mu.Unlock()
	report()
	return steering, followUp
}

// Pending is how many steering and follow-up messages wait in the queues
// of the current run.
func (a *Agent) Pending() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.active == nil {
		return 0
	}
	return len(a.active.steering) + len(a.active.followUps)
}

// Append adds messages to the transcript between runs (a message the
// caller recorded itself, such as a user's shell command and its output);
// the next run sees them. It fails with ErrBusy while a run is active.
func (a *Agent) Append(msgs ...ai.Message) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.active != nil {
		return ErrBusy
	}
	copies := ai.CloneMessages(msgs)
	a.transcript = append(slices.Clip(a.transcript), copies...)
	a.dmu.Lock()
	a.state.Messages = append(slices.Clip(a.state.Messages), ai.CloneMessages(copies)...)
	a.dmu.Unlock()
	return nil
}
