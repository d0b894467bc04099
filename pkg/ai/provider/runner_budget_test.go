package provider_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"gopi/pkg/ai"
	"gopi/pkg/ai/provider"
	"gopi/pkg/ai/provider/providertest"
)

// fakeClock is a clock that only the runner's waits move.
type fakeClock struct {
	now    time.Time
	delays []time.Duration
}

func (c *fakeClock) Now() time.Time { return c.now }

func (c *fakeClock) Sleep(_ context.Context, d time.Duration) error {
	c.delays = append(c.delays, d)
	c.now = c.now.Add(d)
	return nil
}

func rateLimited(h http.Header) *ai.ProviderError {
	return provider.Classify(provider.Status{Code: 429, Header: h, Now: time.Unix(0, 0)}, provider.APIError{Type: "rate_limit_error", Message: "slow down"})
}

// The zero Policy is the documented defaults: ten attempts, a 2s base
// delay doubling up to 30s, with jitter.
func TestRunnerDefaultPolicy(t *testing.T) {
	t.Parallel()
	var steps []step
	for i := range 10 {
		steps = append(steps, step{err: busy(ai.ClassServer, fmt.Sprint(i))})
	}
	s := &script{t: t, steps: steps}
	sl := &providertest.Sleeper{}
	r := provider.Runner{Info: info(), Policy: provider.Policy{Rand: func() float64 { return 0 }}, Sleep: sl.Sleep}
	_, final := providertest.Collect(t, r.Stream(t.Context(), s.attempt))
	if s.calls != 10 {
		t.Errorf("attempts = %d, want 10", s.calls)
	}
	s15 := 15 * time.Second
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, s15, s15, s15, s15, s15}
	if diff := cmp.Diff(want, sl.Delays); diff != "" {
		t.Errorf("sleeps (-want +got):\n%s", diff)
	}
	if final.ErrorMessage != "server (HTTP 503): 9 (gave up after 10 attempts)" {
		t.Errorf("final = %q", final.ErrorMessage)
	}
}

// Three 429s in a row do not end a run under the default policy.
func TestRunnerDefaultOutlastsRateLimits(t *testing.T) {
	t.Parallel()
	s := &script{t: t, steps: []step{{err: rateLimited(nil)}, {err: rateLimited(nil)}, {err: rateLimited(nil)}, {text: "ok"}}}
	c := &fakeClock{now: time.Unix(1_700_000_000, 0)}
	r := provider.Runner{Info: info(), Policy: provider.Policy{Rand: half}, Now: c.Now, Sleep: c.Sleep}
	evs, final := providertest.Collect(t, r.Stream(t.Context(), s.attempt))
	if final.StopReason != ai.StopStop || s.calls != 4 {
		t.Fatalf("final %s %q after %d attempts", final.StopReason, final.ErrorMessage, s.calls)
	}
	want := []ai.RetryInfo{
		{Attempt: 1, MaxAttempts: 10, Delay: 1500 * time.Millisecond, ErrorMessage: "rate_limit (HTTP 429): rate_limit_error: slow down"},
		{Attempt: 2, MaxAttempts: 10, Delay: 3 * time.Second, ErrorMessage: "rate_limit (HTTP 429): rate_limit_error: slow down"},
		{Attempt: 3, MaxAttempts: 10, Delay: 6 * time.Second, ErrorMessage: "rate_limit (HTTP 429): rate_limit_error: slow down"},
		{Attempt: 4, MaxAttempts: 10, Success: true},
	}
	if diff := cmp.Diff(want, retries(evs)); diff != "" {
		t.Errorf("retry notices (-want +got):\n%s", diff)
	}
}

// retry-after: 0 and retry-after-ms: 0 mean now: no wait at all.
func TestRunnerRetryAfterZeroIsNow(t *testing.T) {
	t.Parallel()
	for _, hdr := range []string{"Retry-After", "Retry-After-Ms"} {
		t.Run(hdr, func(t *testing.T) {
			h := http.Header{}
			h.Set(hdr, "0")
			s := &script{t: t, steps: []step{{err: rateLimited(h)}, {err: rateLimited(h)}, {text: "ok"}}}
			c := &fakeClock{now: time.Unix(1_700_000_000, 0)}
			r := provider.Runner{Info: info(), Policy: provider.Policy{Rand: half}, Now: c.Now, Sleep: c.Sleep}
			_, final := providertest.Collect(t, r.Stream(t.Context(), s.attempt))
			if final.StopReason != ai.StopStop || !cmp.Equal(c.delays, []time.Duration{0, 0}) {
				t.Errorf("final %s, waits %v; want two retries at once", final.StopReason, c.delays)
			}
		})
	}
}

// The retries of one request stop when the next wait would pass
// MaxTotal, and the message says so.
func TestRunnerTotalBudget(t *testing.T) {
	t.Parallel()
	var steps []step
	for range 10 {
		steps = append(steps, step{err: busy(ai.ClassOverloaded, "busy")})
	}
	s := &script{t: t, steps: steps}
	c := &fakeClock{now: time.Unix(1_700_000_000, 0)}
	// Waits of 10s, 20s, 40s, 60s, 60s…: the fifth (ending at 190s) would
	// pass the 150s budget.
	p := provider.Policy{BaseDelay: 20 * time.Second, MaxDelay: 2 * time.Minute, MaxTotal: 150 * time.Second, Rand: func() float64 { return 0 }}
	r := provider.Runner{Info: info(), Policy: p, Now: c.Now, Sleep: c.Sleep}
	evs, final := providertest.Collect(t, r.Stream(t.Context(), s.attempt))
	wantDelays := []time.Duration{10 * time.Second, 20 * time.Second, 40 * time.Second, time.Minute}
	if diff := cmp.Diff(wantDelays, c.delays); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
	want := "overloaded (HTTP 503): busy (gave up after 5 attempts in 2m10s: a retry in 1m0s would pass the 2m30s limit)"
	if s.calls != 5 || final.ErrorMessage != want {
		t.Errorf("%d attempts, final %q;\nwant 5, %q", s.calls, final.ErrorMessage, want)
	}
	if rs := retries(evs); len(rs) != 5 || rs[4].Success || rs[4].ErrorMessage != want {
		t.Errorf("retry notices %+v", rs)
	}
}

// A server-requested wait counts against the budget too.
func TestRunnerTotalBudgetRetryAfter(t *testing.T) {
	t.Parallel()
	h := http.Header{}
	h.Set("Retry-After", "50")
	s := &script{t: t, steps: []step{{err: rateLimited(h)}, {err: rateLimited(h)}, {err: rateLimited(h)}}}
	c := &fakeClock{now: time.Unix(1_700_000_000, 0)}
	r := provider.Runner{Info: info(), Policy: provider.Policy{MaxTotal: 2 * time.Minute}, Now: c.Now, Sleep: c.Sleep}
	_, final := providertest.Collect(t, r.Stream(t.Context(), s.attempt))
	if s.calls != 3 || !cmp.Equal(c.delays, []time.Duration{50 * time.Second, 50 * time.Second}) || final.StopReason != ai.StopError {
		t.Errorf("%d attempts, waits %v, final %s %q", s.calls, c.delays, final.StopReason, final.ErrorMessage)
	}
}

// What waiting cannot fix is never retried, whatever the server's
// x-should-retry says.
func TestRunnerNeverRetriesRefusals(t *testing.T) {
	t.Parallel()
	h := http.Header{}
	h.Set("X-Should-Retry", "true")
	for _, tt := range []struct {
		status int
		e      provider.APIError
	}{
		{401, provider.APIError{Type: "authentication_error", Message: "invalid x-api-key"}},
		{403, provider.APIError{Type: "permission_error", Message: "no"}},
		{429, provider.APIError{Code: "insufficient_quota", Message: "You exceeded your current quota"}},
		{400, provider.APIError{Type: "invalid_request_error", Message: "messages: field required"}},
		{400, provider.APIError{Type: "invalid_request_error", Message: "prompt is too long: 1 tokens > 0 maximum"}},
	} {
		t.Run(fmt.Sprint(tt.status, tt.e.Message), func(t *testing.T) {
			s := &script{t: t, steps: []step{{err: provider.Classify(provider.Status{Code: tt.status, Header: h}, tt.e)}}}
			c := &fakeClock{now: time.Unix(1_700_000_000, 0)}
			r := provider.Runner{Info: info(), Now: c.Now, Sleep: c.Sleep}
			evs, final := providertest.Collect(t, r.Stream(t.Context(), s.attempt))
			if s.calls != 1 || len(c.delays) != 0 || len(retries(evs)) != 0 || final.StopReason != ai.StopError {
				t.Errorf("%d attempts, waits %v, final %s", s.calls, c.delays, final.StopReason)
			}
		})
	}
}

// A stalled stream is retried; the stall's partial output is dropped.
func TestRunnerRetriesStall(t *testing.T) {
	t.Parallel()
	stall := &ai.ProviderError{Class: ai.ClassTimeout, Retryable: true, Message: "no data from the server for 2m0s (stream idle timeout)"}
	s := &script{t: t, steps: []step{{text: "half", err: stall}, {text: "whole"}}}
	c := &fakeClock{now: time.Unix(1_700_000_000, 0)}
	r := provider.Runner{Info: info(), Policy: provider.Policy{Rand: half}, Now: c.Now, Sleep: c.Sleep}
	evs, final := providertest.Collect(t, r.Stream(t.Context(), s.attempt))
	if final.Text() != "whole" || s.calls != 2 {
		t.Errorf("final %q after %d attempts", final.Text(), s.calls)
	}
	if rs := retries(evs); len(rs) != 2 || rs[0].ErrorMessage != "timeout: "+stall.Message || rs[0].Delay != 1500*time.Millisecond {
		t.Errorf("retry notices %+v", rs)
	}
}
