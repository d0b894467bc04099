package provider_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"gopi/pkg/ai"
	"gopi/pkg/ai/provider"
	"gopi/pkg/ai/provider/providertest"
)

const secret = "sk-test-0123456789"

// step is one scripted attempt: text streamed before it ends, then err or
// a clean stop.
type step struct {
	text string
	err  error
}

// script answers attempt i with steps[i] and counts the attempts.
type script struct {
	t     *testing.T
	steps []step
	calls int
}

func (s *script) attempt(ctx context.Context, b *ai.Builder) (ai.StopReason, error) {
	s.calls++
	if s.calls > len(s.steps) {
		s.t.Fatalf("attempt %d, only %d scripted", s.calls, len(s.steps))
	}
	st := s.steps[s.calls-1]
	if st.text != "" {
		idx, ok := b.TextStart()
		if !ok || !b.TextDelta(idx, st.text) {
			return "", st.err
		}
		if st.err == nil && !b.TextEnd(idx, "") {
			return "", nil
		}
	}
	if st.err != nil {
		return "", st.err
	}
	return ai.StopStop, nil
}

func busy(class ai.Class, msg string) *ai.ProviderError {
	return &ai.ProviderError{Class: class, Status: 503, Retryable: true, Message: msg}
}

// half is a jitter source in the middle of its range, so delays are exact.
func half() float64 { return 0.5 }

func info() ai.Info { return ai.Info{ID: "m1", Provider: "p", API: "a"} }

func retries(evs []ai.Event) []ai.RetryInfo {
	var out []ai.RetryInfo
	for _, e := range evs {
		if e.Retry != nil {
			out = append(out, *e.Retry)
		}
	}
	return out
}

func TestRunnerFirstAttemptSucceeds(t *testing.T) {
	t.Parallel()
	s := &script{t: t, steps: []step{{text: "hello"}}}
	sl := &providertest.Sleeper{}
	r := provider.Runner{Info: info(), Sleep: sl.Sleep}
	evs, final := providertest.Collect(t, r.Stream(t.Context(), s.attempt))
	want := []ai.EventType{ai.EventStart, ai.EventTextStart, ai.EventTextDelta, ai.EventTextEnd, ai.EventDone}
	if diff := cmp.Diff(want, providertest.Types(evs)); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if final.StopReason != ai.StopStop || final.Text() != "hello" || s.calls != 1 || len(sl.Delays) != 0 {
		t.Errorf("final %s %q after %d attempts, sleeps %v", final.StopReason, final.Text(), s.calls, sl.Delays)
	}
}

func TestRunnerRetriesUntilSuccess(t *testing.T) {
	t.Parallel()
	s := &script{t: t, steps: []step{
		{text: "partial", err: busy(ai.ClassOverloaded, "overloaded, key "+secret)},
		{err: busy(ai.ClassServer, "down")},
		{text: "final"},
	}}
	sl := &providertest.Sleeper{}
	r := provider.Runner{Info: info(), Policy: provider.Policy{MaxAttempts: 3, BaseDelay: time.Second, MaxDelay: time.Minute, Rand: half},
		Sleep: sl.Sleep, Secrets: []string{secret}}
	evs, final := providertest.Collect(t, r.Stream(t.Context(), s.attempt))

	wantTypes := []ai.EventType{
		ai.EventStart, ai.EventTextStart, ai.EventTextDelta, ai.EventRetryStart,
		ai.EventStart, ai.EventRetryStart,
		ai.EventStart, ai.EventTextStart, ai.EventTextDelta, ai.EventTextEnd, ai.EventRetryEnd, ai.EventDone,
	}
	if diff := cmp.Diff(wantTypes, providertest.Types(evs)); diff != "" {
		t.Fatalf("events (-want +got):\n%s", diff)
	}
	wantRetries := []ai.RetryInfo{
		{Attempt: 1, MaxAttempts: 3, Delay: 750 * time.Millisecond, ErrorMessage: "overloaded (HTTP 503): overloaded, key [REDACTED]"},
		{Attempt: 2, MaxAttempts: 3, Delay: 1500 * time.Millisecond, ErrorMessage: "server (HTTP 503): down"},
		{Attempt: 3, MaxAttempts: 3, Success: true},
	}
	if diff := cmp.Diff(wantRetries, retries(evs)); diff != "" {
		t.Errorf("retry notices (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]time.Duration{750 * time.Millisecond, 1500 * time.Millisecond}, sl.Delays); diff != "" {
		t.Errorf("sleeps (-want +got):\n%s", diff)
	}
	// The failed attempt's partial output is not part of the answer.
	if final.StopReason != ai.StopStop || len(final.Content) != 1 || final.Content[0].Text != "final" || final.ErrorMessage != "" {
		t.Errorf("final = %s %q %+v", final.StopReason, final.ErrorMessage, final.Content)
	}
	if s.calls != 3 {
		t.Errorf("attempts = %d, want 3", s.calls)
	}
}

func TestRunnerGivesUpAfterMaxAttempts(t *testing.T) {
	t.Parallel()
	for _, max := range []int{1, 2, 4} {
		t.Run(fmt.Sprint(max), func(t *testing.T) {
			steps := make([]step, max)
			for i := range steps {
				steps[i] = step{err: busy(ai.ClassOverloaded, fmt.Sprintf("busy %d %s", i+1, secret))}
			}
			s := &script{t: t, steps: steps}
			sl := &providertest.Sleeper{}
			r := provider.Runner{Info: info(), Policy: provider.Policy{MaxAttempts: max, BaseDelay: time.Second, MaxDelay: time.Minute, Rand: half},
				Sleep: sl.Sleep, Secrets: []string{secret}}
			evs, final := providertest.Collect(t, r.Stream(t.Context(), s.attempt))
			providertest.AssertNoSecret(t, evs, secret)
			last := fmt.Sprintf("overloaded (HTTP 503): busy %d [REDACTED]", max)
			if max > 1 {
				last += fmt.Sprintf(" (gave up after %d attempts)", max)
			}
			var want []ai.RetryInfo
			for n := 1; n < max; n++ {
				want = append(want, ai.RetryInfo{Attempt: n, MaxAttempts: max, Delay: time.Duration(750<<(n-1)) * time.Millisecond,
					ErrorMessage: fmt.Sprintf("overloaded (HTTP 503): busy %d [REDACTED]", n)})
			}
			if max > 1 {
				want = append(want, ai.RetryInfo{Attempt: max, MaxAttempts: max, ErrorMessage: last})
			}
			if diff := cmp.Diff(want, retries(evs)); diff != "" {
				t.Errorf("retry notices (-want +got):\n%s", diff)
			}
			if s.calls != max || len(sl.Delays) != max-1 {
				t.Errorf("attempts = %d, sleeps = %d; want %d and %d", s.calls, len(sl.Delays), max, max-1)
			}
			pe := providertest.ProviderError(t, evs)
			if final.StopReason != ai.StopError || final.ErrorMessage != last || pe.Class != ai.ClassOverloaded || pe.Status != 503 {
				t.Errorf("final = %s %q, err %v", final.StopReason, final.ErrorMessage, pe)
			}
		})
	}
}

func TestRunnerDoesNotRetry(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		err   error
		class ai.Class
		msg   string
	}{
		{"final provider error", &ai.ProviderError{Class: ai.ClassAuth, Status: 401, Message: "bad key " + secret}, ai.ClassAuth, "auth (HTTP 401): bad key [REDACTED]"},
		{"plain error", errors.New("decode: " + secret), ai.ClassInternal, "internal: decode: [REDACTED]"},
		{"wrapped final error", fmt.Errorf("read: %w", &ai.ProviderError{Class: ai.ClassQuota, Message: "no credit"}), ai.ClassQuota, "quota: no credit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &script{t: t, steps: []step{{text: "half an answer", err: tt.err}}}
			sl := &providertest.Sleeper{}
			r := provider.Runner{Info: info(), Sleep: sl.Sleep, Secrets: []string{secret}}
			evs, final := providertest.Collect(t, r.Stream(t.Context(), s.attempt))
			want := []ai.EventType{ai.EventStart, ai.EventTextStart, ai.EventTextDelta, ai.EventError}
			if diff := cmp.Diff(want, providertest.Types(evs)); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			if final.ErrorMessage != tt.msg || ai.ClassOf(evs[len(evs)-1].Err) != tt.class || final.StopReason != ai.StopError {
				t.Errorf("final = %s %q %v", final.StopReason, final.ErrorMessage, evs[len(evs)-1].Err)
			}
			if len(sl.Delays) != 0 {
				t.Errorf("slept %v", sl.Delays)
			}
		})
	}
}

func TestRunnerHonoursRetryAfter(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		max      time.Duration // Policy.MaxRetryAfter
		after    time.Duration
		retried  bool
		wantWait time.Duration
	}{
		{"short hint", 0, 5 * time.Second, true, 5 * time.Second},
		{"hint at the default limit", 0, 60 * time.Second, true, 60 * time.Second},
		{"hint over the default limit", 0, 61 * time.Second, false, 0},
		{"hint at a set limit", 10 * time.Second, 10 * time.Second, true, 10 * time.Second},
		{"hint over a set limit", 10 * time.Second, 10*time.Second + time.Millisecond, false, 0},
		{"tiny hint", 0, time.Millisecond, true, time.Millisecond},
		{"the smallest hint", 0, time.Nanosecond, true, time.Nanosecond},
		{"a saturated hint", 0, math.MaxInt64, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pe := &ai.ProviderError{Class: ai.ClassRateLimit, Status: 429, Retryable: true, RetryAfter: tt.after, Message: "slow down"}
			steps := []step{{err: pe}}
			if tt.retried {
				steps = append(steps, step{})
			}
			s := &script{t: t, steps: steps}
			sl := &providertest.Sleeper{}
			r := provider.Runner{Info: info(), Policy: provider.Policy{MaxRetryAfter: tt.max, Rand: half}, Sleep: sl.Sleep}
			evs, final := providertest.Collect(t, r.Stream(t.Context(), s.attempt))
			if !tt.retried {
				limit := tt.max
				if limit == 0 {
					limit = time.Minute
				}
				want := fmt.Sprintf("rate_limit (HTTP 429): slow down (the server asked to retry after %s, more than the %s gopi waits)",
					tt.after.Round(time.Second), limit)
				if final.ErrorMessage != want || len(sl.Delays) != 0 || s.calls != 1 {
					t.Errorf("final %q after %d attempts and sleeps %v;\nwant %q", final.ErrorMessage, s.calls, sl.Delays, want)
				}
				if pe.Message != "slow down" {
					t.Errorf("the attempt's own error was changed: %q", pe.Message)
				}
				return
			}
			if final.StopReason != ai.StopStop || len(sl.Delays) != 1 || sl.Delays[0] != tt.wantWait {
				t.Errorf("final %s, sleeps %v; want one sleep of %s", final.StopReason, sl.Delays, tt.wantWait)
			}
			if rs := retries(evs); len(rs) != 2 || rs[0].Delay != tt.wantWait {
				t.Errorf("retry notices %+v", rs)
			}
		})
	}
}
