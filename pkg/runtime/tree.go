package runtime

import (
	"context"
	"errors"
	"iter"
	"sync"

	"gopi/pkg/ai"
	"gopi/pkg/loop"
)

// Tree is what a run and its children (sub-agents' runs) spend together,
// as they spend it: one budget binds them all. The parent's Runtime is
// built with a Tree (Deps.Tree) and each child's with Tree.Child, so the
// parent's checks see every request a child made, and a child's checks
// what the parent and the other children spent. The parent's Result
// counts what its children spent in its run.
//
// An answer that spends the tree's budget cuts short every other request
// of the tree in flight (a sibling's answer streaming): its stream is
// cancelled at once, and its run ends with the budget's reason, not at
// its next check after the answer streamed to its end.
type Tree struct {
	mu      sync.Mutex
	all     ai.Usage     // everything spent in the tree since the parent's run began
	kids    ai.Usage     // the children's share of all
	by      []ModelUsage // the children's share per model
	flights map[*flight]struct{}
}

// flight is one model request of the tree in flight.
type flight struct{ cancel context.CancelCauseFunc }

// NewTree returns an empty Tree.
func NewTree() *Tree { return &Tree{} }

// member is one Runtime's place in a Tree.
type member struct {
	tree   *Tree
	child  bool
	limits loop.Limits // the run's budget (Tokens, USD), which binds the tree
	mu     sync.Mutex
	own    ai.Usage // what this Runtime's requests spent in the tree's count
}

// count adds what one answer (or attempt) of the request f spent; when
// the tree's spending passes the budget, every other request in flight
// is cancelled with the budget's error as the cause.
func (m *member) count(f *flight, provider, model string, u ai.Usage) {
	if u == (ai.Usage{}) {
		return
	}
	m.mu.Lock()
	m.own = m.own.Add(u)
	m.mu.Unlock()
	t := m.tree
	t.mu.Lock()
	defer t.mu.Unlock()
	t.all = t.all.Add(u)
	if m.child {
		t.kids = t.kids.Add(u)
		t.by = AddUsage(t.by, provider, model, u)
	}
	if be := m.limits.Check(t.all); be != nil {
		for other := range t.flights {
			if other != f {
				other.cancel(be)
			}
		}
	}
}

// fly records a request in flight until land.
func (t *Tree) fly(cancel context.CancelCauseFunc) *flight {
	f := &flight{cancel: cancel}
	t.mu.Lock()
	if t.flights == nil {
		t.flights = map[*flight]struct{}{}
	}
	t.flights[f] = struct{}{}
	t.mu.Unlock()
	return f
}

func (t *Tree) land(f *flight) {
	t.mu.Lock()
	delete(t.flights, f)
	t.mu.Unlock()
}

// others is what the rest of the tree spent: for the parent its
// children, for a child the parent and the other children.
func (m *member) others() ai.Usage {
	m.mu.Lock()
	own := m.own
	m.mu.Unlock()
	t := m.tree
	t.mu.Lock()
	defer t.mu.Unlock()
	if !m.child {
		return t.kids
	}
	return sub(t.all, own)
}

// reset starts the parent's run: nothing spent yet.
func (m *member) reset() {
	if m.child {
		return
	}
	m.mu.Lock()
	m.own = ai.Usage{}
	m.mu.Unlock()
	t := m.tree
	t.mu.Lock()
	t.all, t.kids, t.by = ai.Usage{}, ai.Usage{}, nil
	t.mu.Unlock()
}

// children returns what the children spent since the parent's run began.
func (m *member) children() (ai.Usage, []ModelUsage) {
	t := m.tree
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.kids, append([]ModelUsage(nil), t.by...)
}

// counted wraps a model so that what its answers (and retried attempts)
// spend is counted in the tree as it is spent.
func (m *member) counted(inner ai.Model) ai.Model {
	if inner == nil {
		return nil
	}
	return &treeModel{inner: inner, m: m}
}

type treeModel struct {
	inner ai.Model
	m     *member
}

// Stream counts what the request spends as it is spent; a request the
// tree's budget cut short (another member's answer spent it) ends with
// the budget's error (a *loop.BudgetError), as one never sent does.
func (t *treeModel) Stream(ctx context.Context, req *ai.Request) iter.Seq[ai.Event] {
	return func(yield func(ai.Event) bool) {
		flying, cancel := context.WithCancelCause(ctx)
		f := t.m.tree.fly(cancel)
		defer func() {
			t.m.tree.land(f)
			cancel(nil)
		}()
		var attempt ai.Message
		for e := range t.inner.Stream(flying, req) {
			switch {
			case e.Type == ai.EventStart && e.Message != nil:
				attempt = *e.Message
			case e.Type == ai.EventRetryStart && e.Retry != nil:
				t.m.count(f, attempt.Provider, attempt.Model, e.Retry.Usage)
			case e.Terminal() && e.Message != nil:
				t.m.count(f, e.Message.Provider, e.Message.Model, e.Message.Usage)
			}
			if e.Terminal() && ctx.Err() == nil {
				e = budgetCut(e, context.Cause(flying))
			}
			if !yield(e) {
				return
			}
		}
	}
}

// budgetCut is the terminal event e of a request the tree's budget
// cancelled (cause a *loop.BudgetError) and that ended cut short: its
// error is the budget's, and its message says so. Any other e is
// returned as it is.
func budgetCut(e ai.Event, cause error) ai.Event {
	var be *loop.BudgetError
	cut := e.Type == ai.EventError || e.Message == nil || e.Message.StopReason == ai.StopAborted
	if !cut || !errors.As(cause, &be) {
		return e // it ended on its own, before or as the budget was spent
	}
	e.Err = be
	if e.Message != nil {
		m := e.Message.Clone()
		m.StopReason = ai.StopAborted
		m.ErrorMessage = be.Error() + "; the answer was cut short"
		e.Message = &m
	}
	return e
}

// sub is a minus b, for the counts a budget checks.
func sub(a, b ai.Usage) ai.Usage {
	return ai.Usage{
		Input: a.Input - b.Input, Output: a.Output - b.Output,
		CacheRead: a.CacheRead - b.CacheRead, CacheWrite: a.CacheWrite - b.CacheWrite,
		TotalTokens: a.TotalTokens - b.TotalTokens,
		Cost: ai.Cost{
			Input: a.Cost.Input - b.Cost.Input, Output: a.Cost.Output - b.Cost.Output,
			CacheRead: a.Cost.CacheRead - b.Cost.CacheRead, CacheWrite: a.Cost.CacheWrite - b.Cost.CacheWrite,
			Total: a.Cost.Total - b.Cost.Total,
		},
	}
}
