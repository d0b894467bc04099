package assemble

import (
	"fmt"
	"strings"

	"gopi/pkg/ai"
)

// compactionModel is the model of Settings.CompactionModel, which writes
// the summaries of compactions in place of the run's model (a cheaper or
// larger-window one); nil when there is none. It is resolved once per
// Assembly (its note said once) and again only when the key it would use
// changes (a switch of the run's model to or from its provider).
func (a *Assembly) compactionModel(main Choice) (ai.Model, ai.Info, error) {
	s := &a.s
	if s.CompactionModel == "" {
		return nil, ai.Info{}, nil
	}
	key := ""
	if prov, _, _ := strings.Cut(s.CompactionModel, "/"); prov == main.Info.Provider {
		key = main.Key
	}
	if c := a.compactor; c != nil && c.key == key {
		return c.Model, c.Info, nil
	}
	ch, err := a.resolveCompactionModel(key)
	if err != nil {
		return nil, ai.Info{}, err
	}
	a.compactor = &resolvedCompactor{Choice: ch, key: key}
	return ch.Model, ch.Info, nil
}

// resolvedCompactor is the compaction model an Assembly resolved, with
// the key it was given.
type resolvedCompactor struct {
	Choice
	key string
}

// resolveCompactionModel builds the compaction model. The provider is
// resolved as the run's is (built-in or declared under "providers"), with
// that provider's key, or key (the run's, for the run's own provider)
// when set. It sends nothing.
func (a *Assembly) resolveCompactionModel(key string) (Choice, error) {
	s := &a.s
	origin := s.origin("compaction")
	prov, id, ok := strings.Cut(s.CompactionModel, "/")
	if !ok || prov == "" || id == "" {
		return Choice{}, Usagef("%s: \"model\" is %q: give provider/id, such as anthropic/claude-haiku-4-5", origin, s.CompactionModel)
	}
	m := s.Model
	m.APIKey = key
	ch, err := pickModel(a.env, m, prov, id)
	if err != nil {
		return Choice{}, Usagef("%s: \"model\" %q: %v", origin, s.CompactionModel, err)
	}
	if ch.Note != "" && a.env.Stderr != nil {
		fmt.Fprintln(a.env.Stderr, ch.Note)
	}
	if s.Limits.USD > 0 && ch.Info.Prices == (ai.Prices{}) {
		return Choice{}, Usagef("%s: model %s/%s has no prices, so what its summaries spend cannot be counted in dollars: declare its prices under \"providers\" in settings, or use --max-budget-tokens",
			origin, ch.Info.Provider, ch.Info.ID)
	}
	return ch, nil
}
