package runtime

import (
	"context"
	"iter"
	"sync"

	"gopi/pkg/ai"
)

// ModelUsage is what one model spent in a run.
type ModelUsage struct {
	Provider string   `json:"provider"`
	Model    string   `json:"model"`
	Usage    ai.Usage `json:"usage"`
}

// AddUsage adds u, spent by provider/model, to the list: to that model's
// entry, or as a new entry at the end (the order of first use).
func AddUsage(list []ModelUsage, provider, model string, u ai.Usage) []ModelUsage {
	for i := range list {
		if list[i].Provider == provider && list[i].Model == model {
			list[i].Usage = list[i].Usage.Add(u)
			return list
		}
	}
	return append(list, ModelUsage{Provider: provider, Model: model, Usage: ai.Usage{}.Add(u)})
}

// meter counts what a run spends beside its transcript's answers: the
// summary requests of compactions and the attempts that failed and were
// sent again (count), which a run's budget (Config.Limits) and its Result
// include beside the run's own answers.
type meter struct {
	inner ai.Model
	retry func(ai.Event) // retry_start and retry_end, when set
	mu    sync.Mutex
	spent ai.Usage
	by    []ModelUsage
}

func (m *meter) Stream(ctx context.Context, req *ai.Request) iter.Seq[ai.Event] {
	return func(yield func(ai.Event) bool) {
		var attempt ai.Message // the attempt's start: its provider and model
		for e := range m.inner.Stream(ctx, req) {
			if m.retry != nil && (e.Type == ai.EventRetryStart || e.Type == ai.EventRetryEnd) {
				m.retry(e)
			}
			switch {
			case e.Type == ai.EventStart && e.Message != nil:
				attempt = *e.Message
			case e.Type == ai.EventRetryStart && e.Retry != nil && e.Retry.Usage != (ai.Usage{}):
				m.count(attempt.Provider, attempt.Model, e.Retry.Usage)
			case e.Terminal() && e.Message != nil:
				m.count(e.Message.Provider, e.Message.Model, e.Message.Usage)
			}
			if !yield(e) {
				return
			}
		}
	}
}

// count adds what provider/model spent.
func (m *meter) count(provider, model string, u ai.Usage) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.spent = m.spent.Add(u)
	m.by = AddUsage(m.by, provider, model, u)
}

// reset starts counting again from nothing (a new run).
func (m *meter) reset() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.spent, m.by = ai.Usage{}, nil
}

// total returns what was spent since the last reset.
func (m *meter) total() ai.Usage {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.spent
}

// byModel returns what was spent since the last reset, per model.
func (m *meter) byModel() []ModelUsage {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]ModelUsage(nil), m.by...)
}
