package runtime

import (
	"context"
	"errors"
	"fmt"

	"gopi/pkg/agent"
	"gopi/pkg/ai"
	"gopi/pkg/loop"
	"gopi/pkg/session"
	"gopi/pkg/tools"
)

// Result is the outcome of one Prompt.
type Result struct {
	loop.Result
	// Leaf is the newest persisted entry after the prompt: what the next
	// run continues from.
	Leaf string
	// ByModel is Usage per model, in the order of first use: the run's
	// answers and the summaries of its compactions, which may come from
	// another model (Deps.CompactionModel). Usage is their sum.
	ByModel []ModelUsage
}

// Prompt queues one operation: it runs the Agent with msgs and returns
// only after the last message of the run is in the store. Concurrent
// calls run one after another in arrival order. A run that fails or is
// aborted is a Result with that reason; an error means the Runtime is
// disposed or poisoned (the partial Result is still returned). No
// message is agent.ErrEmptyPrompt, and then nothing is written.
func (r *Runtime) Prompt(ctx context.Context, msgs ...ai.Message) (Result, error) {
	if len(msgs) == 0 {
		return Result{Leaf: r.Leaf()}, agent.ErrEmptyPrompt
	}
	prev, done, err := r.accept()
	if err != nil {
		return Result{}, err
	}
	select {
	case <-prev:
	case <-ctx.Done():
		// Given up while queued: keep the queue's order for those behind.
		go func() { <-prev; close(done) }()
		return Result{Leaf: r.Leaf()}, ctx.Err()
	}
	defer close(done)
	if err := r.poisoned(); err != nil {
		return Result{Leaf: r.Leaf()}, err
	}
	if err := r.recordSettings(); err != nil {
		return Result{Leaf: r.Leaf()}, err
	}
	r.startRun()
	r.compactions.reset() // a run's budget counts the compactions of that run
	if r.member != nil {
		r.member.reset()
	}
	r.mu.Lock()
	r.runFrom = r.persisted
	r.mu.Unlock()
	res, err := r.agent.Prompt(ctx, msgs...)
	out := Result{Result: res, Leaf: r.Leaf()}
	out.Usage, out.ByModel = spentBy(res, r.compactions.byModel())
	if m := r.member; m != nil && !m.child {
		kids, by := m.children()
		out.Usage = out.Usage.Add(kids)
		for _, u := range by {
			out.ByModel = AddUsage(out.ByModel, u.Provider, u.Model, u.Usage)
		}
	}
	if err != nil {
		return out, err
	}
	if perr := r.poisoned(); perr != nil {
		out.Reason, out.Err = loop.ReasonError, perr
		return out, perr
	}
	return out, nil
}

// accept enters the operation queue: it returns the channel to wait on
// (the previous operation) and the one to close when this one ends.
func (r *Runtime) accept() (prev <-chan struct{}, done chan struct{}, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.disposed {
		return nil, nil, ErrDisposed
	}
	if r.poison != nil {
		return nil, nil, r.poison
	}
	p := r.tail
	if p == nil {
		c := make(chan struct{})
		close(c)
		p = c
	}
	done = make(chan struct{})
	r.tail = done
	r.accepted++
	return p, done, nil
}

func (r *Runtime) poisoned() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.poison
}

// commit writes one message as an entry under the current leaf. The leaf
// advances only after the store accepted the entry; a failure poisons
// the Runtime with that cause.
func (r *Runtime) commit(m ai.Message) error {
	_, err := r.appendEntry(session.MessageEntry("", m), true)
	return err
}

// appendEntry stores e under the current leaf and advances the leaf.
func (r *Runtime) appendEntry(e session.Entry, isMessage bool) (session.Entry, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.poison != nil {
		return session.Entry{}, r.poison
	}
	e.ParentID = session.Ref(r.leaf)
	stored, err := r.storeAppend(e)
	if err != nil {
		r.poison = &PoisonError{Err: err}
		var ce *session.ChangedError
		if errors.As(err, &ce) && ce.EntriesLost() {
			r.leaf = "" // the file at the session's path no longer has it
		}
		return session.Entry{}, r.poison
	}
	r.path = append(r.path, stored.Clone())
	r.leaf = stored.ID
	if isMessage {
		r.persisted++
	}
	return stored, nil
}

// storeAppend calls the store. A panic is a failed write like any other:
// whether the entry reached the store is unknown either way, so the
// Runtime fails closed on both alike.
func (r *Runtime) storeAppend(e session.Entry) (stored session.Entry, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the session store panicked: %v", p)
			if perr, ok := p.(error); ok {
				err = fmt.Errorf("the session store panicked: %w", perr)
			}
		}
	}()
	return r.deps.Session.Append(context.WithoutCancel(context.Background()), e)
}

// PoisonError is the cause every Prompt and Flush returns after a failed
// write to the session store.
type PoisonError struct{ Err error }

func (e *PoisonError) Error() string { return fmt.Sprintf("session write failed: %v", e.Err) }
func (e *PoisonError) Unwrap() error { return e.Err }

// recordSettings writes the session's name (when configured and the path
// does not already say it), then
// model_change and thinking_level_change entries when the path does not
// already name the model and level in use, so that a resumed session
// knows what answered it.
func (r *Runtime) recordSettings() error {
	r.mu.Lock()
	cur := session.ModelStateOf(r.path)
	name := ""
	if !r.named && r.cfg.SessionName != "" && pathName(r.path) != r.cfg.SessionName {
		name = r.cfg.SessionName
	}
	r.named = true
	r.mu.Unlock()
	if name != "" {
		if _, err := r.appendEntry(session.SessionInfoEntry("", name), false); err != nil {
			return err
		}
	}
	u := r.using()
	info := u.info
	if info.Provider != "" && (cur.Provider != info.Provider || cur.ModelID != info.ID) {
		if _, err := r.appendEntry(session.ModelChangeEntry("", info.Provider, info.ID), false); err != nil {
			return err
		}
	}
	level := u.thinking
	if level == "" {
		level = ai.ThinkingOff
	}
	if cur.ThinkingLevel != level {
		if _, err := r.appendEntry(session.ThinkingLevelEntry("", level), false); err != nil {
			return err
		}
	}
	return nil
}

// RecordSettings writes at once, once the operations accepted before it
// ended, the model_change and thinking_level_change entries the path
// lacks for the Runtime's model and level (pi records a model or level
// switch when it is made; a prompt would write them first otherwise).
func (r *Runtime) RecordSettings(ctx context.Context) error {
	done, err := r.awaitTurn(ctx)
	if err != nil {
		return err
	}
	defer close(done)
	return r.recordSettings()
}

// pathName is the name the newest session_info entry on path gives.
func pathName(path []session.Entry) string {
	for i := len(path) - 1; i >= 0; i-- {
		if e := &path[i]; e.Type == session.TypeSessionInfo {
			if e.Name == nil {
				return ""
			}
			return *e.Name
		}
	}
	return ""
}

// Flush waits for every accepted operation, then reports the poison
// cause, if any. It starts no work.
func (r *Runtime) Flush(ctx context.Context) error {
	r.mu.Lock()
	tail := r.tail
	r.mu.Unlock()
	if tail != nil {
		select {
		case <-tail:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return r.poisoned()
}

// Dispose refuses new prompts at once and waits for the accepted ones.
// Calling it again waits for the same completion.
func (r *Runtime) Dispose(ctx context.Context) error {
	r.mu.Lock()
	if !r.disposed {
		r.disposed = true
		r.disposing = make(chan struct{})
		tail := r.tail
		go func() {
			if tail != nil {
				<-tail
			}
			close(r.disposing)
		}()
	}
	done := r.disposing
	r.mu.Unlock()
	select {
	case <-done:
		return r.poisoned()
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Control is what a user interface may do to a running Runtime: watch it
// and steer it. New runs only start through Runtime.Prompt, so that no
// run skips the session.
type Control struct{ a *agent.Agent }

// Control returns the Runtime's control surface.
func (r *Runtime) Control() Control { return Control{a: r.agent} }

// State returns a deep copy of the Agent's state.
func (c Control) State() agent.State { return c.a.State() }

// Subscribe registers fn for every later event; see agent.Agent.Subscribe.
func (c Control) Subscribe(fn func(agent.Event), filter ...agent.Filter) (unsubscribe func()) {
	return c.a.Subscribe(fn, filter...)
}

// Steer queues a message for the running run. It is refused once the
// run's outcome is settled; a message it accepts is delivered or handed
// back with run_end (agent.Event.Unsent); see agent.Agent.Steer.
func (c Control) Steer(m ai.Message) error { return c.a.Steer(m) }

// FollowUp queues a message for when the running run would stop; it is
// refused, delivered or handed back as Steer says.
func (c Control) FollowUp(m ai.Message) error { return c.a.FollowUp(m) }

// Abort cancels the running run.
func (c Control) Abort() { c.a.Abort() }

// spentBy sums what a run spent: its answers' usage per model, then the
// compactions'.
func spentBy(res loop.Result, compactions []ModelUsage) (ai.Usage, []ModelUsage) {
	var by []ModelUsage
	for _, m := range res.New() {
		if m.Role == ai.RoleAssistant {
			by = AddUsage(by, m.Provider, m.Model, m.Usage)
		}
	}
	total := res.Usage
	for _, c := range compactions {
		by = AddUsage(by, c.Provider, c.Model, c.Usage)
		total = total.Add(c.Usage)
	}
	return total, by
}

// ClearQueue takes back every message Steer and FollowUp queued and the
// run has not taken yet; see agent.Agent.ClearQueue.
func (c Control) ClearQueue() (steering, followUp []ai.Message) { return c.a.ClearQueue() }

// Pending is how many queued messages the run has not taken yet.
func (c Control) Pending() int { return c.a.Pending() }

// SetQueueModes changes how many queued messages a run takes at once,
// from the next boundary of the next run on ("" keeps a mode).
func (c Control) SetQueueModes(steering, followUp agent.QueueMode) {
	c.a.Configure(func(o *agent.Options) {
		if steering != "" {
			o.SteeringMode = steering
		}
		if followUp != "" {
			o.FollowUpMode = followUp
		}
	})
}

// awaitTurn enters the operation queue and waits until the operations
// accepted before it ended; the caller closes done when its own ends. A
// ctx that ends first gives the turn up (the next operation still waits
// for the earlier ones) and returns ctx's error.
func (r *Runtime) awaitTurn(ctx context.Context) (done chan struct{}, err error) {
	prev, done, err := r.accept()
	if err != nil {
		return nil, err
	}
	select {
	case <-prev:
		return done, nil
	case <-ctx.Done():
		go func() { <-prev; close(done) }()
		return nil, ctx.Err()
	}
}

// SetName records name as a session_info entry (pi's session name) under
// the current leaf at once, as pi does, also while a run or compaction is
// going on (the run's next entry follows it); the entry is in the store
// when it returns.
func (r *Runtime) SetName(ctx context.Context, name string) (session.Entry, error) {
	if err := ctx.Err(); err != nil {
		return session.Entry{}, err
	}
	r.mu.Lock()
	if r.disposed {
		r.mu.Unlock()
		return session.Entry{}, ErrDisposed
	}
	r.named = true // a configured name no longer overrides this one
	r.mu.Unlock()
	return r.appendEntry(session.SessionInfoEntry("", name), false)
}

// Name is the session's name on the active path ("" when none).
func (r *Runtime) Name() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return pathName(r.path)
}

// MessageCount is the number of messages State would hold, without
// copying them.
func (c Control) MessageCount() int { return c.a.MessageCount() }

// ErrNoTool: RunTool was asked for a tool the Runtime does not offer.
var ErrNoTool = errors.New("the tool is not among the Runtime's tools")

// RunTool calls one tool outside a run, as a run would (the extensions'
// hooks, keys scrubbed from the result and every update), for a user who
// asks for it directly (pi's RPC bash). Nothing is recorded.
func (r *Runtime) RunTool(ctx context.Context, call ai.Content, update func(tools.Result)) (tools.Result, error) {
	if r.exec == nil {
		return tools.Result{}, ErrNoTool
	}
	found := false
	for _, s := range r.exec.Specs() {
		found = found || s.Name == call.Name
	}
	if !found {
		return tools.Result{}, ErrNoTool
	}
	if update == nil {
		update = func(tools.Result) {}
	}
	return r.exec.Execute(ctx, call, update), nil
}

// Record appends m to the session and to the transcript, once the
// operations accepted before it ended, as a message the next run sees
// (pi's bashExecution message, which the model sees as the command and
// its output).
func (r *Runtime) Record(ctx context.Context, m ai.Message) (session.Entry, error) {
	done, err := r.awaitTurn(ctx)
	if err != nil {
		return session.Entry{}, err
	}
	defer close(done)
	e, err := r.appendEntry(session.MessageEntry("", m), true)
	if err != nil {
		return session.Entry{}, err
	}
	if err := r.agent.Append(m); err != nil {
		return e, err
	}
	return e, nil
}
