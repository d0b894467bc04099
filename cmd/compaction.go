package cmd

import "gopi/pkg/runtime"

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

// readCompaction reads the "compaction" setting and its summary model; a
// missing key keeps pi's default (on, 16384 reserved, 20000 recent tokens
// kept, the run's model).
func readCompaction(c *settings) (runtime.Compaction, string, error) {
	var s compactionSettings
	if err := c.decode("compaction", &s); err != nil {
		return runtime.Compaction{}, "", err
	}
	out := runtime.Compaction{Disabled: s.Enabled != nil && !*s.Enabled}
	for _, f := range []struct {
		name string
		val  *int
		dst  *int
	}{{"reserveTokens", s.ReserveTokens, &out.ReserveTokens}, {"keepRecentTokens", s.KeepRecentTokens, &out.KeepRecentTokens}} {
		if f.val == nil {
			continue
		}
		if *f.val <= 0 {
			return runtime.Compaction{}, "", usageErr("%s: %q is %d: give a whole number of tokens above 0", c.origin("compaction"), f.name, *f.val)
		}
		*f.dst = *f.val
	}
	return out, s.Model, nil
}
