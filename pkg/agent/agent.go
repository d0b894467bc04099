// Package agent is the stateful Agent: it owns the transcript between
// runs, allows one active run at a time, derives a State from events with
// a pure reducer, dispatches events to subscribers in FIFO order (also
// events raised from inside a subscriber), and hands out only deep copies.
// Abort cancels only the current run; steering and follow-up messages enter
// the run at the loop's boundaries and never leak into a later run: input
// is refused once the run's outcome is settled, and input accepted is
// delivered or handed back with run_end, never dropped silently.
package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"gopi/pkg/ai"
	"gopi/pkg/loop"
)

// QueueMode says how many queued messages the loop takes at a boundary.
type QueueMode string

// Queue modes, as pi names them.
const (
	OneAtATime QueueMode = "one-at-a-time"
	All        QueueMode = "all"
)

// Options configure an Agent. Model is required.
type Options struct {
	Model        ai.Model
	SystemPrompt string
	Tools        loop.Executor
	MaxSteps     int
	MaxTokens    int
	Thinking     ai.ThinkingLevel
	// Limits bound what each run may spend (loop.Limits).
	Limits loop.Limits
	// OutputSchema is the schema every request asks the answer to follow
	// (ai.Request.OutputSchema).
	OutputSchema json.RawMessage
	// Messages is the initial transcript (deep-copied).
	Messages []ai.Message
	// OwnMessages hands Messages over instead: the Agent keeps them as
	// they are, without a copy, and the caller must neither read nor change
	// them (or their backing array) afterwards. Spare capacity is used for
	// what runs add, so a long restored transcript is not copied again.
	OwnMessages  bool
	SteeringMode QueueMode // default OneAtATime
	FollowUpMode QueueMode // default OneAtATime
	Now          func() time.Time
	Stopwatch    func() func() time.Duration // loop.Config's
	// BeforeStart is loop.Config's: called before each run's agent_start;
	// it may report through Notify.
	BeforeStart func(ctx context.Context, transcript []ai.Message)
	// Commit, when set, makes each message a run adds durable before it
	// is reported (a store writes it here). Its rules:
	//
	//   - It is called with every message the run adds, in order, before
	//     that message's message_end reaches any subscriber.
	//   - A complete message (a prompt, a tool result) is not shown before
	//     it is committed: its message_start waits for the commit and goes
	//     out with its message_end.
	//   - An error stops the run at once (no further model request or tool
	//     call); the run ends with reason error and that cause, and the
	//     run's later messages are not committed.
	//   - What was not committed is not reported: after a failure no
	//     message or turn event is emitted (a streamed answer whose commit
	//     failed has had its start and deltas, never an end), and agent_end
	//     and the result hold only the committed messages.
	//   - A panic ends the run as any failure outside the loop does (reason
	//     error): the message it was given counts as not committed and is
	//     not reported, the hook is not asked again, and an error message
	//     (reported, not committed) follows the messages already reported.
	Commit func(ai.Message) error
}

// Agent runs prompts against a model with tools, keeping the transcript.
// It is safe for concurrent use.
type Agent struct {
	mu         sync.Mutex
	opts       Options
	transcript []ai.Message // authoritative history between runs
	active     *activeRun
	last       *activeRun // the most recent run, for WaitForIdle
	nextRunID  int
	// queueVersion numbers the queue snapshots (see queueChanged).
	queueVersion uint64
	dispatcher
}

// activeRun is what one run owns while it is active.
type activeRun struct {
	id     int
	ctx    context.Context // once done, the run's outcome is settled: input is refused
	cancel context.CancelCauseFunc
	// maxSteps is the loop's limit: the turn_end of the last allowed step
	// settles the run, since the loop takes no queued input after it.
	maxSteps  int
	started   bool  // the loop emitted agent_start
	turns     int   // turn_ends the loop emitted
	asked     int   // assistant messages the loop ended (model requests)
	commitErr error // the first Commit failure; later messages are not committed
	committed int   // messages of this run Commit accepted
	// commitPanicked: the Commit hook panicked and is not asked again.
	commitPanicked bool
	// held is the message_start of a complete message (a prompt, a tool
	// result) waiting for its commit: it goes out with its message_end.
	held *loop.Event
	// reported are the run's messages whose message_end went out: what a
	// failure outside the loop keeps (the loop's own result is lost then).
	reported  []ai.Message
	steering  []ai.Message
	followUps []ai.Message
	// notify is the loop's way in for events reported during the run
	// (Notify); set as the loop starts.
	notify    func(loop.Event)
	accepting bool
	done      chan struct{}
}

// New returns an idle Agent.
func New(opts Options) *Agent {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.SteeringMode == "" {
		opts.SteeringMode = OneAtATime
	}
	if opts.FollowUpMode == "" {
		opts.FollowUpMode = OneAtATime
	}
	msgs := opts.Messages
	if !opts.OwnMessages {
		msgs = ai.CloneMessages(msgs)
	}
	a := &Agent{opts: opts, transcript: slices.Clip(msgs)}
	a.opts.Messages, a.opts.OwnMessages = nil, false
	// Messages inside the Agent are never changed in place (runs, models
	// and the reducer only append), so the state may share them; what
	// leaves the Agent is always a deep copy. The state's slice is the only
	// one whose spare capacity anything appends to.
	a.state = State{Status: Idle, Messages: msgs}
	return a
}

// Configure changes the options used by the next run (not the current
// one): model, system prompt, tools, limits, thinking and queue modes. The
// transcript is not touched.
func (a *Agent) Configure(change func(*Options)) {
	a.mu.Lock()
	defer a.mu.Unlock()
	msgs := a.opts.Messages
	change(&a.opts)
	a.opts.Messages = msgs
}

// Messages returns a deep copy of the transcript as the next run will see it.
func (a *Agent) Messages() []ai.Message {
	a.mu.Lock()
	defer a.mu.Unlock()
	return ai.CloneMessages(a.transcript)
}

// PromptText runs a prompt given as text.
func (a *Agent) PromptText(ctx context.Context, text string) (loop.Result, error) {
	return a.Prompt(ctx, ai.UserText(text, a.opts.Now().UnixMilli()))
}

// Prompt adds the messages to the transcript and runs until the model
// stops. It fails at once with ErrBusy while another run is active. The
// result is a deep copy; a run that fails or is aborted is a result with
// that reason, not an error.
func (a *Agent) Prompt(ctx context.Context, msgs ...ai.Message) (loop.Result, error) {
	if len(msgs) == 0 {
		return loop.Result{}, ErrEmptyPrompt
	}
	return a.start(ctx, ai.CloneMessages(msgs), nil)
}

// Continue runs from the existing transcript without a new prompt. The
// last message must be a user message or a tool result: a model request
// after the model's own answer would have no input to answer.
func (a *Agent) Continue(ctx context.Context) (loop.Result, error) {
	return a.start(ctx, nil, func(history []ai.Message) error {
		if len(history) == 0 {
			return ErrNothingToContinue
		}
		if last := history[len(history)-1]; last.Role == ai.RoleAssistant {
			return fmt.Errorf("%w: the last message is the assistant's", ErrNothingToContinue)
		}
		return nil
	})
}

func (a *Agent) start(ctx context.Context, prompts []ai.Message, check func([]ai.Message) error) (loop.Result, error) {
	a.mu.Lock()
	if a.active != nil {
		a.mu.Unlock()
		return loop.Result{}, ErrBusy
	}
	if check != nil {
		if err := check(a.transcript); err != nil {
			a.mu.Unlock()
			return loop.Result{}, err
		}
	}
	a.nextRunID++
	runCtx, cancel := context.WithCancelCause(ctx)
	run := &activeRun{id: a.nextRunID, ctx: runCtx, cancel: cancel, maxSteps: a.opts.MaxSteps,
		accepting: true, done: make(chan struct{})}
	if run.maxSteps <= 0 {
		run.maxSteps = loop.DefaultMaxSteps
	}
	a.active, a.last = run, run
	history := slices.Clip(a.transcript) // shared, never changed in place (see New)
	opts := a.opts
	a.mu.Unlock()

	res := a.execute(runCtx, run, opts, history, prompts)
	cancel(nil)
	if run.commitErr != nil {
		res.Reason, res.Err = loop.ReasonError, run.commitErr
		res.Messages = slices.Clip(res.Messages[:min(res.Start+run.committed, len(res.Messages))])
	}
	a.finish(run, res)
	return res.Clone(), nil
}

// execute runs the loop; a panic outside the loop's own recovery still
// completes the lifecycle with an error message (see lifecycleAfterPanic).
func (a *Agent) execute(ctx context.Context, run *activeRun, opts Options, history, prompts []ai.Message) (res loop.Result) {
	emit := func(e loop.Event) { a.onLoopEvent(run, opts.Commit, e) }
	defer func() {
		if p := recover(); p != nil {
			res = a.lifecycleAfterPanic(run, opts, history, p)
		}
	}()
	return loop.Run(ctx, loop.Config{
		Model: opts.Model, SystemPrompt: opts.SystemPrompt, Tools: opts.Tools,
		MaxSteps: opts.MaxSteps, MaxTokens: opts.MaxTokens, Thinking: opts.Thinking, Now: opts.Now,
		Limits: opts.Limits, OutputSchema: opts.OutputSchema,
		Stopwatch: opts.Stopwatch,
		Emit:      emit,
		Notices: func(notify func(loop.Event)) {
			a.mu.Lock()
			run.notify = notify
			a.mu.Unlock()
		},
		BeforeStart: opts.BeforeStart,
		Steering:    func() []ai.Message { return a.takeSteering(run) },
		FollowUp:    func() []ai.Message { return a.takeFollowUp(run) },
	}, history, prompts)
}

// Notify reports e as an event of the active run, in order with the
// loop's: a layer above the loop (the Runtime's context projection)
// reports through it what happened to a request's context
// (compaction_start, compaction_end, context_trimmed), so that the model's
// stream carries only what the model said. Call it only from inside the
// model's Stream or Options.BeforeStart, on the run's goroutine or on
// goroutines it waits for, one call at a time; outside a run it does
// nothing.
func (a *Agent) Notify(e loop.Event) {
	a.mu.Lock()
	var notify func(loop.Event)
	if a.active != nil {
		notify = a.active.notify
	}
	a.mu.Unlock()
	if notify != nil {
		notify(e)
	}
}

// Abort cancels the current run, if any. The run ends with reason aborted
// once the model and the tools have seen the cancellation.
func (a *Agent) Abort() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.active != nil {
		a.active.cancel(nil)
	}
}

// WaitForIdle returns nil once no run is active and the last run's
// run_end has been emitted (at once when the Agent is idle, whatever ctx),
// or ctx's error when ctx ends first. Do not call it from a subscriber
// with a ctx that does not end: the run it waits for is waiting for that
// subscriber.
func (a *Agent) WaitForIdle(ctx context.Context) error {
	for {
		a.mu.Lock()
		run := a.active
		if run == nil {
			run = a.last
		}
		a.mu.Unlock()
		if run == nil {
			return nil
		}
		select {
		case <-run.done:
		default:
			// Only a run still going waits for ctx: an idle Agent is
			// reported idle even when ctx has already ended.
			select {
			case <-run.done:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		a.mu.Lock()
		idle := a.active == nil
		a.mu.Unlock()
		if idle {
			return nil
		}
	}
}
