// Package runtime is the composition root: it restores one Agent from an
// explicitly chosen leaf of a session, rebuilds every model request from
// the persisted path plus the run's not-yet-persisted suffix (within the
// model's token budget, compacting when the context grows too large),
// wraps the tools with the extension host, serialises prompts through one
// operation queue, and writes every message of a run to the session store
// as soon as it is complete, before it is reported anywhere. A failed
// write (the store returning an error or panicking) poisons the Runtime:
// nothing more reaches the model or the store.
package runtime

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"gopi/pkg/agent"
	"gopi/pkg/ai"
	"gopi/pkg/loop"
	"gopi/pkg/session"
	"gopi/pkg/tools"
)

// Config is what a Runtime is asked to do.
type Config struct {
	// ActiveLeaf is the entry the conversation continues from. nil is
	// allowed only for an empty session; a non-empty session must name one.
	ActiveLeaf *string
	// SystemPrompt is the whole system prompt (the base prompt, appended
	// text and the project's context, as pkg/assemble builds it); a blank
	// one sends none.
	SystemPrompt string
	MaxSteps     int
	MaxTokens    int
	Thinking     ai.ThinkingLevel
	// Model describes Deps.Model: its provider and id are recorded in the
	// session, its context window bounds the budget. Model and Thinking
	// are the first ones: SetModel and SetThinking switch them.
	Model ai.Info
	// Budget bounds every request's context; a zero ContextWindow takes
	// the model's.
	Budget     session.Budget
	Compaction Compaction
	// Limits bound what each run may spend, the summaries of compactions
	// during the run included (loop.Limits; Extra is the Runtime's own).
	Limits loop.Limits
	// OutputSchema is the schema the final answer must satisfy, passed to
	// the model's requests (ai.Request.OutputSchema); checking the answer
	// is the caller's (mode).
	OutputSchema json.RawMessage
	SteeringMode agent.QueueMode
	FollowUpMode agent.QueueMode
	// SessionName, when set, is recorded as a session_info entry before
	// the first prompt's entries (pi's --name).
	SessionName string
}

// Compaction configures automatic compaction.
type Compaction struct {
	Disabled bool
	// ReserveTokens: compact when the context passes window − reserve
	// (default session.DefaultReserveTokens).
	ReserveTokens    int
	KeepRecentTokens int
	// Model describes Deps.CompactionModel, the model that writes the
	// summaries; zero when that is Deps.Model.
	Model ai.Info
}

// Extensions wraps the tool executor with hooks.
type Extensions interface {
	Wrap(next loop.Executor) loop.Executor
}

// Observer, when the extension host implements it, is notified of every event.
type Observer interface {
	Notify(runID int, e loop.Event)
}

// Deps are the objects a Runtime is built from. The Runtime uses them
// as given (same identity) and does not close the store.
type Deps struct {
	Model ai.Model
	// CompactionModel writes the summaries of compactions; nil: Model.
	CompactionModel ai.Model
	Tools           loop.Executor // nil: no tools
	// Secrets are scrubbed from every tool result and partial result,
	// after the extensions; nil: those the executor itself declares.
	Secrets    *tools.Secrets
	Session    session.Store
	Extensions Extensions // may be nil
	Now        func() time.Time
	// Stopwatch measures answers and tool calls (loop.Config's); nil:
	// their durations are not recorded.
	Stopwatch func() func() time.Duration
	// Tree, when set, is the spending this Runtime shares with its
	// children or its parent (sub-agents' runs): one budget binds them,
	// each seeing the others' requests as they are made, and a parent's
	// Result counts its children's. TreeChild says this Runtime is a
	// child's.
	Tree      *Tree
	TreeChild bool
}

// Errors of the Runtime.
var (
	ErrDisposed = errors.New("runtime is disposed: it accepts no new prompts")
	// ErrNoLeaf: a non-empty session without a chosen leaf.
	ErrNoLeaf = errors.New("the session is not empty: choose the entry to continue from (--leaf ID, or -c for the newest)")
	// ErrUnknownLeaf: a leaf for an empty session.
	ErrUnknownLeaf = errors.New("unknown leaf: the session has no entries")
)

// Runtime runs prompts against one session.
type Runtime struct {
	cfg   Config
	deps  Deps
	agent *agent.Agent
	exec  loop.Executor // the tools as runs call them (nil: none)
	// compactions is deps.Model as compaction uses it, counting what its
	// summaries spend for the run's budget.
	compactions *meter
	// limits are the run's budget as the loop checks it (Extra counts
	// the compactions); the projector checks them before each request.
	limits loop.Limits
	// member is the Runtime's place in Deps.Tree; nil without one.
	member *member
	// useMu guards use, the model and thinking level in use.
	useMu sync.Mutex
	use   inUse
	// notifyMu makes the reports of a split turn's two summary requests,
	// which run at once while the run waits, one at a time.
	notifyMu sync.Mutex

	mu        sync.Mutex // guards the fields below
	path      []session.Entry
	leaf      string
	persisted int // message entries on path = the persisted transcript prefix
	runFrom   int // the transcript's length when the current run started
	warnings  []session.Warning
	poison    error
	tail      chan struct{} // closed when the last accepted operation ends
	accepted  int           // operations accepted so far
	disposed  bool
	disposing chan struct{}
	named     bool // SessionName was recorded
}

// New restores the chosen path into one Agent. An unknown leaf, or no
// leaf for a non-empty session, is an error.
func New(cfg Config, deps Deps) (*Runtime, error) {
	if deps.Model == nil || deps.Session == nil {
		return nil, errors.New("runtime: a model and a session store are required")
	}
	if deps.Now == nil {
		deps.Now = time.Now
	}
	r := &Runtime{cfg: cfg, deps: deps}
	if deps.Tree != nil {
		r.member = &member{tree: deps.Tree, child: deps.TreeChild, limits: loop.Limits{Tokens: cfg.Limits.Tokens, USD: cfg.Limits.USD}}
		r.deps.Model = r.member.counted(deps.Model)
		r.deps.CompactionModel = r.member.counted(deps.CompactionModel)
		deps = r.deps
	}
	if err := r.restore(); err != nil {
		return nil, err
	}
	n := 0
	for _, e := range r.path {
		if e.Type == session.TypeMessage && e.Message != nil {
			n++
		}
	}
	// The Agent gets deep copies, made here once and handed over, with
	// room for what the run adds.
	msgs := make([]ai.Message, 0, n+16)
	for _, e := range r.path {
		if e.Type == session.TypeMessage && e.Message != nil {
			msgs = append(msgs, e.Message.Clone())
		}
	}
	r.persisted = len(msgs)
	exec := deps.Tools
	if deps.Extensions != nil && exec != nil {
		exec = deps.Extensions.Wrap(exec)
	}
	if exec != nil {
		// Outermost, so whatever a hook or wrapper did to a result, the
		// keys are out of it before it becomes an event or an entry.
		exec = loop.Scrubbing(exec, deps.Secrets)
	}
	r.exec = exec
	r.use = inUse{model: deps.Model, info: cfg.Model, thinking: cfg.Thinking, runLevel: cfg.Thinking}
	r.compactions = &meter{inner: current{r}}
	if deps.CompactionModel != nil {
		r.compactions.inner = deps.CompactionModel
	}
	limits := cfg.Limits
	limits.Extra = r.compactions.total
	if m := r.member; m != nil {
		limits.Extra = func() ai.Usage { return r.compactions.total().Add(m.others()) }
	}
	r.limits = limits
	proj := &projector{r: r}
	r.agent = agent.New(agent.Options{
		Model: proj, BeforeStart: proj.beforeStart, SystemPrompt: r.systemPrompt(), Tools: exec,
		MaxSteps: cfg.MaxSteps, MaxTokens: cfg.MaxTokens, Thinking: cfg.Thinking, Limits: limits, OutputSchema: cfg.OutputSchema, Messages: msgs, OwnMessages: true,
		SteeringMode: cfg.SteeringMode, FollowUpMode: cfg.FollowUpMode, Now: deps.Now, Commit: r.commit,
		Stopwatch: deps.Stopwatch,
	})
	if obs, ok := deps.Extensions.(Observer); ok {
		r.agent.SubscribeEvents(obs.Notify)
	}
	return r, nil
}

// restore applies the four cases of an explicit leaf.
func (r *Runtime) restore() error {
	entries := r.deps.Session.Entries()
	leaf := r.cfg.ActiveLeaf
	switch {
	case len(entries) == 0 && leaf == nil:
		return nil
	case len(entries) == 0:
		return fmt.Errorf("%w (asked for %q)", ErrUnknownLeaf, *leaf)
	case leaf == nil:
		return ErrNoLeaf
	}
	path, warnings, err := session.PathTo(entries, *leaf)
	if err != nil {
		return err
	}
	r.path, r.warnings = path, warnings
	r.leaf = path[len(path)-1].ID
	return nil
}

// systemPrompt is Config.SystemPrompt, or none when it is blank.
func (r *Runtime) systemPrompt() string {
	if strings.TrimSpace(r.cfg.SystemPrompt) == "" {
		return ""
	}
	return r.cfg.SystemPrompt
}

// SystemPrompt returns the assembled system prompt.
func (r *Runtime) SystemPrompt() string { return r.systemPrompt() }

// Session returns the store the Runtime writes to.
func (r *Runtime) Session() session.Store { return r.deps.Session }

// Extensions returns the extension host the Runtime was given.
func (r *Runtime) Extensions() Extensions { return r.deps.Extensions }

// Secrets returns the values scrubbed from tool output (nil: none).
func (r *Runtime) Secrets() *tools.Secrets { return r.deps.Secrets }

// Leaf returns the id of the newest persisted entry of the active path
// ("" for an empty session): what the next run continues from.
func (r *Runtime) Leaf() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.leaf
}

// Path returns a copy of the active path.
func (r *Runtime) Path() []session.Entry {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]session.Entry, len(r.path))
	for i, e := range r.path {
		out[i] = e.Clone()
	}
	return out
}

// Warnings returns what restoring the path reported (gaps, torn lines).
func (r *Runtime) Warnings() []session.Warning {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]session.Warning(nil), r.warnings...)
}

// Messages returns a deep copy of the Agent's transcript.
func (r *Runtime) Messages() []ai.Message { return r.agent.Messages() }
