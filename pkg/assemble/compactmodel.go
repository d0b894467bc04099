package assemble

import (
	"fmt"
	"strings"

	"gopi/pkg/ai"
)

// compactionModel builds the model of Settings.CompactionModel, which
// writes the summaries of compactions in place of the run's model (a
// cheaper or larger-window one); nil when there is none. The provider is
// resolved as the run's is (built-in or declared under "providers"), with
// that provider's key; the run's key is reused only for the run's own
// provider. It sends nothing.
func (a *Assembly) compactionModel(main Choice) (ai.Model, ai.Info, error) {
	s := &a.s
	if s.CompactionModel == "" {
		return nil, ai.Info{}, nil
	}
	origin := s.origin("compaction")
	prov, id, ok := strings.Cut(s.CompactionModel, "/")
	if !ok || prov == "" || id == "" {
		return nil, ai.Info{}, Usagef("%s: \"model\" is %q: give provider/id, such as anthropic/claude-haiku-4-5", origin, s.CompactionModel)
	}
	m := s.Model
	m.APIKey = ""
	if prov == main.Info.Provider {
		m.APIKey = main.Key
	}
	ch, err := pickModel(a.env, m, prov, id)
	if err != nil {
		return nil, ai.Info{}, Usagef("%s: \"model\" %q: %v", origin, s.CompactionModel, err)
	}
	if ch.Note != "" && a.env.Stderr != nil {
		fmt.Fprintln(a.env.Stderr, ch.Note)
	}
	if s.Limits.USD > 0 && ch.Info.Prices == (ai.Prices{}) {
		return nil, ai.Info{}, Usagef("%s: model %s/%s has no prices, so what its summaries spend cannot be counted in dollars: declare its prices under \"providers\" in settings, or use --max-budget-tokens",
			origin, ch.Info.Provider, ch.Info.ID)
	}
	return ch.Model, ch.Info, nil
}
