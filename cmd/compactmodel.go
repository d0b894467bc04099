package cmd

import (
	"fmt"
	"strings"

	"gopi/pkg/ai"
)

// compactionModel builds the model of the "compaction": {"model":
// "provider/id"} setting, which writes the summaries of compactions in
// place of the run's model (a cheaper or larger-window one); nil when the
// setting is absent. The provider is resolved as --model's is (built-in
// or declared under "providers"), with that provider's key; the run's key
// is reused only for the run's own provider. It sends nothing.
func compactionModel(sys *System, s *runSettings, main modelChoice) (ai.Model, ai.Info, error) {
	var set struct {
		Model string `json:"model"`
	}
	if err := s.cfg.decode("compaction", &set); err != nil {
		return nil, ai.Info{}, err
	}
	if set.Model == "" {
		return nil, ai.Info{}, nil
	}
	origin := s.cfg.origin("compaction")
	prov, id, ok := strings.Cut(set.Model, "/")
	if !ok || prov == "" || id == "" {
		return nil, ai.Info{}, usageErr("%s: \"model\" is %q: give provider/id, such as anthropic/claude-haiku-4-5", origin, set.Model)
	}
	customs := map[string]customProvider{}
	if err := s.cfg.decode("providers", &customs); err != nil {
		return nil, ai.Info{}, err
	}
	key := ""
	if prov == main.info.Provider {
		key = main.key
	}
	ch, err := pickModel(sys, s.cfg, prov, id, key, customs)
	if err != nil {
		return nil, ai.Info{}, usageErr("%s: \"model\" %q: %v", origin, set.Model, err)
	}
	if ch.note != "" {
		fmt.Fprintln(sys.Stderr, ch.note)
	}
	if s.limits.USD > 0 && ch.info.Prices == (ai.Prices{}) {
		return nil, ai.Info{}, usageErr("%s: model %s/%s has no prices, so what its summaries spend cannot be counted in dollars: declare its prices under \"providers\" in settings, or use --max-budget-tokens",
			origin, ch.info.Provider, ch.info.ID)
	}
	return ch.model, ch.info, nil
}
