package runtime

import (
	"context"
	"iter"
	"sync"

	"gopi/pkg/ai"
)

// meter counts what the summary requests of compactions spend, which a
// run's budget (Config.Limits) includes beside the run's own answers.
type meter struct {
	inner ai.Model
	mu    sync.Mutex
	spent ai.Usage
}

func (m *meter) Stream(ctx context.Context, req *ai.Request) iter.Seq[ai.Event] {
	return func(yield func(ai.Event) bool) {
		for e := range m.inner.Stream(ctx, req) {
			if e.Terminal() && e.Message != nil {
				m.mu.Lock()
				m.spent = m.spent.Add(e.Message.Usage)
				m.mu.Unlock()
			}
			if !yield(e) {
				return
			}
		}
	}
}

// reset starts counting again from nothing (a new run).
func (m *meter) reset() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.spent = ai.Usage{}
}

// total returns what was spent since the last reset.
func (m *meter) total() ai.Usage {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.spent
}
