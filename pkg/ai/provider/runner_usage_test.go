package provider_test

import (
	"context"
	"testing"
	"time"

	"gopi/pkg/ai"
	"gopi/pkg/ai/provider"
)

// A retried attempt's usage was dropped: retry_start carried none, so the
// run recorded the attempt as free though the stream had reported what it
// spent. retry_start carries the failed attempt's usage.
func TestRetryStartCarriesTheAttemptsUsage(t *testing.T) {
	spent := ai.Usage{Input: 1200, Output: 30, TotalTokens: 1230, Cost: ai.Cost{Input: 0.0036, Output: 0.00045, Total: 0.00405}}
	calls := 0
	attempt := func(ctx context.Context, b *ai.Builder) (ai.StopReason, error) {
		calls++
		if calls == 1 {
			b.SetUsage(spent)
			return "", busy(ai.ClassOverloaded, "overloaded")
		}
		b.SetUsage(ai.Usage{Input: 5, Output: 1, TotalTokens: 6})
		return ai.StopStop, nil
	}
	r := provider.Runner{Info: ai.Info{ID: "m", Provider: "p"}, Policy: provider.Policy{MaxAttempts: 3}, Sleep: func(context.Context, time.Duration) error { return nil }}
	var got []ai.Usage
	var final ai.Usage
	for e := range r.Stream(t.Context(), attempt) {
		if e.Type == ai.EventRetryStart {
			got = append(got, e.Retry.Usage)
		}
		if e.Terminal() {
			final = e.Message.Usage
		}
	}
	if len(got) != 1 || got[0] != spent {
		t.Errorf("retry_start usage %+v, want %+v", got, spent)
	}
	if final.Input != 5 {
		t.Errorf("final usage %+v: the retry's own", final)
	}
}
