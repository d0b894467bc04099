package settings

import (
	"gopi/pkg/assemble"
	"gopi/pkg/runtime"
)

// subagentSettings is the "subagents" setting:
// {"maxConcurrency": 4, "maxDepth": 1}.
type subagentSettings struct {
	MaxConcurrency *int `json:"maxConcurrency"`
	MaxDepth       *int `json:"maxDepth"`
}

// subagents reads the "subagents" setting; assemble.New adds the
// agents the catalog found.
func (s *Settings) subagents() (assemble.SubagentSettings, error) {
	var set subagentSettings
	if err := s.Decode("subagents", &set); err != nil {
		return assemble.SubagentSettings{}, err
	}
	var out assemble.SubagentSettings
	for _, f := range []struct {
		name string
		val  *int
		dst  *int
	}{{"maxConcurrency", set.MaxConcurrency, &out.MaxConcurrency}, {"maxDepth", set.MaxDepth, &out.MaxDepth}} {
		if f.val == nil {
			continue
		}
		if *f.val <= 0 {
			return assemble.SubagentSettings{}, assemble.Usagef("%s: %q is %d: give a whole number above 0", s.Origin("subagents"), f.name, *f.val)
		}
		*f.dst = *f.val
	}
	return out, nil
}

// compactionSettings is the "compaction" setting, as pi names it:
// {"enabled": true, "reserveTokens": 16384, "keepRecentTokens": 20000}.
type compactionSettings struct {
	Enabled          *bool `json:"enabled"`
	ReserveTokens    *int  `json:"reserveTokens"`
	KeepRecentTokens *int  `json:"keepRecentTokens"`
	// Model is gopi's addition: "provider/id" of the model that writes
	// the summaries; "" for the run's own.
	Model string `json:"model"`
}

// Compaction reads the "compaction" setting and its summary model; a
// missing key keeps pi's default (on, 16384 reserved, 20000 recent tokens
// kept, the run's model).
func (s *Settings) Compaction() (runtime.Compaction, string, error) {
	var set compactionSettings
	if err := s.Decode("compaction", &set); err != nil {
		return runtime.Compaction{}, "", err
	}
	out := runtime.Compaction{Disabled: set.Enabled != nil && !*set.Enabled}
	for _, f := range []struct {
		name string
		val  *int
		dst  *int
	}{{"reserveTokens", set.ReserveTokens, &out.ReserveTokens}, {"keepRecentTokens", set.KeepRecentTokens, &out.KeepRecentTokens}} {
		if f.val == nil {
			continue
		}
		if *f.val <= 0 {
			return runtime.Compaction{}, "", assemble.Usagef("%s: %q is %d: give a whole number of tokens above 0", s.Origin("compaction"), f.name, *f.val)
		}
		*f.dst = *f.val
	}
	return out, set.Model, nil
}
