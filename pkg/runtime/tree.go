package runtime

import (
	"context"
	"iter"
	"sync"

	"gopi/pkg/ai"
)

// Tree is what a run and its children (sub-agents' runs) spend together,
// as they spend it: one budget binds them all. The parent's Runtime is
// built with a Tree (Deps.Tree) and each child's with Tree.Child, so the
// parent's checks see every request a child made, and a child's checks
// what the parent and the other children spent. The parent's Result
// counts what its children spent in its run.
type Tree struct {
	mu   sync.Mutex
	all  ai.Usage     // everything spent in the tree since the parent's run began
	kids ai.Usage     // the children's share of all
	by   []ModelUsage // the children's share per model
}

// NewTree returns an empty Tree.
func NewTree() *Tree { return &Tree{} }

// member is one Runtime's place in a Tree.
type member struct {
	tree  *Tree
	child bool
	mu    sync.Mutex
	own   ai.Usage // what this Runtime's requests spent in the tree's count
}

func (m *member) count(provider, model string, u ai.Usage) {
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

func (t *treeModel) Stream(ctx context.Context, req *ai.Request) iter.Seq[ai.Event] {
	return func(yield func(ai.Event) bool) {
		var attempt ai.Message
		for e := range t.inner.Stream(ctx, req) {
			switch {
			case e.Type == ai.EventStart && e.Message != nil:
				attempt = *e.Message
			case e.Type == ai.EventRetryStart && e.Retry != nil:
				t.m.count(attempt.Provider, attempt.Model, e.Retry.Usage)
			case e.Terminal() && e.Message != nil:
				t.m.count(e.Message.Provider, e.Message.Model, e.Message.Usage)
			}
			if !yield(e) {
				return
			}
		}
	}
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
