package provider_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"testing/synctest"
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
	r := provider.Runner{Info: info(), Policy: provider.Policy{BaseDelay: time.Second, MaxDelay: time.Minute, Rand: half},
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

// The zero Policy is the documented defaults: three attempts, a 2s base
// delay doubling up to 30s, retry-after hints up to 60s.
func TestRunnerDefaultPolicy(t *testing.T) {
	t.Parallel()
	s := &script{t: t, steps: []step{{err: busy(ai.ClassServer, "a")}, {err: busy(ai.ClassServer, "b")}, {err: busy(ai.ClassServer, "c")}}}
	sl := &providertest.Sleeper{}
	r := provider.Runner{Info: info(), Policy: provider.Policy{Rand: func() float64 { return 0 }}, Sleep: sl.Sleep}
	providertest.Collect(t, r.Stream(t.Context(), s.attempt))
	if s.calls != 3 {
		t.Errorf("attempts = %d, want 3", s.calls)
	}
	if diff := cmp.Diff([]time.Duration{time.Second, 2 * time.Second}, sl.Delays); diff != "" {
		t.Errorf("sleeps (-want +got):\n%s", diff)
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

// A cancelled or expired context ends the stream at once, whatever the
// attempt said, and is never retried.
func TestRunnerCallerEndsAttempt(t *testing.T) {
	t.Parallel()
	for _, deadline := range []bool{false, true} {
		t.Run(fmt.Sprint("deadline=", deadline), func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			class, msg := ai.ClassAborted, "aborted: request cancelled"
			if deadline {
				ctx, cancel = context.WithDeadline(t.Context(), time.Unix(1, 0))
				defer cancel()
				class, msg = ai.ClassTimeout, "timeout: request deadline exceeded"
			}
			sl := &providertest.Sleeper{}
			calls := 0
			r := provider.Runner{Info: info(), Sleep: sl.Sleep}
			evs, final := providertest.Collect(t, r.Stream(ctx, func(context.Context, *ai.Builder) (ai.StopReason, error) {
				calls++
				cancel()
				return "", busy(ai.ClassNetwork, "connection reset")
			}))
			if diff := cmp.Diff([]ai.EventType{ai.EventStart, ai.EventError}, providertest.Types(evs)); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			err := evs[len(evs)-1].Err
			if final.StopReason != ai.StopAborted || final.ErrorMessage != msg || ai.ClassOf(err) != class || calls != 1 || len(sl.Delays) != 0 {
				t.Errorf("final = %s %q %v after %d attempts", final.StopReason, final.ErrorMessage, err, calls)
			}
			if !errors.Is(err, ctx.Err()) {
				t.Errorf("err = %v, want it to wrap %v", err, ctx.Err())
			}
		})
	}
}

// A wait that fails on its own (not through ctx) ends the stream with that
// failure, scrubbed, after closing the retry.
func TestRunnerSleepFails(t *testing.T) {
	t.Parallel()
	s := &script{t: t, steps: []step{{err: busy(ai.ClassServer, "down")}}}
	r := provider.Runner{Info: info(), Secrets: []string{secret}, Sleep: func(context.Context, time.Duration) error {
		return errors.New("timer broke near " + secret)
	}}
	evs, final := providertest.Collect(t, r.Stream(t.Context(), s.attempt))
	want := []ai.EventType{ai.EventStart, ai.EventRetryStart, ai.EventRetryEnd, ai.EventStart, ai.EventError}
	if diff := cmp.Diff(want, providertest.Types(evs)); diff != "" {
		t.Fatalf("events (-want +got):\n%s", diff)
	}
	msg := "internal: timer broke near [REDACTED]"
	if end := evs[2].Retry; end.Success || end.ErrorMessage != msg || end.Attempt != 1 || end.MaxAttempts != 3 {
		t.Errorf("retry_end = %+v", end)
	}
	if final.ErrorMessage != msg || final.StopReason != ai.StopError || ai.ClassOf(evs[4].Err) != ai.ClassInternal {
		t.Errorf("final = %s %q", final.StopReason, final.ErrorMessage)
	}
}

func TestRunnerCancelDuringBackoff(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	r := provider.Runner{Info: info(), Sleep: func(ctx context.Context, d time.Duration) error { cancel(); return ctx.Err() }}
	s := &script{t: t, steps: []step{{err: busy(ai.ClassOverloaded, "busy")}}}
	evs, final := providertest.Collect(t, r.Stream(ctx, s.attempt))
	want := []ai.EventType{ai.EventStart, ai.EventRetryStart, ai.EventRetryEnd, ai.EventStart, ai.EventError}
	if diff := cmp.Diff(want, providertest.Types(evs)); diff != "" {
		t.Fatalf("events (-want +got):\n%s", diff)
	}
	if final.StopReason != ai.StopAborted || ai.ClassOf(evs[4].Err) != ai.ClassAborted || evs[2].Retry.ErrorMessage != "aborted: request cancelled" {
		t.Errorf("final = %s %v, retry_end %+v", final.StopReason, evs[4].Err, evs[2].Retry)
	}
}

// Every attempt's start carries the injected clock's time, and the final
// message is the last attempt's.
func TestRunnerClock(t *testing.T) {
	t.Parallel()
	tick := time.UnixMilli(1_700_000_000_000)
	now := func() time.Time { tick = tick.Add(time.Second); return tick }
	s := &script{t: t, steps: []step{{err: busy(ai.ClassServer, "x")}, {text: "ok"}}}
	r := provider.Runner{Info: info(), Now: now, Sleep: (&providertest.Sleeper{}).Sleep}
	evs, final := providertest.Collect(t, r.Stream(t.Context(), s.attempt))
	var stamps []int64
	for _, e := range evs {
		if e.Type == ai.EventStart {
			stamps = append(stamps, e.Message.Timestamp)
			if e.Message.Model != "m1" || e.Message.Provider != "p" || e.Message.API != "a" {
				t.Errorf("start message = %+v", e.Message)
			}
		}
	}
	if diff := cmp.Diff([]int64{1_700_000_001_000, 1_700_000_002_000}, stamps); diff != "" {
		t.Errorf("start timestamps (-want +got):\n%s", diff)
	}
	if final.Timestamp != 1_700_000_002_000 {
		t.Errorf("final timestamp = %d", final.Timestamp)
	}
}

// A consumer may stop after any event: the runner then sends nothing more
// (range-over-func would panic), starts no attempt and waits no more.
func TestRunnerConsumerStops(t *testing.T) {
	t.Parallel()
	steps := func() []step {
		return []step{{text: "a", err: busy(ai.ClassServer, "x")}, {err: busy(ai.ClassServer, "y")}, {text: "b"}}
	}
	full := &script{t: t, steps: steps()}
	r := provider.Runner{Info: info(), Sleep: (&providertest.Sleeper{}).Sleep}
	all, _ := providertest.Collect(t, r.Stream(t.Context(), full.attempt))
	for k := 1; k < len(all); k++ {
		s := &script{t: t, steps: steps()}
		sl := &providertest.Sleeper{}
		r := provider.Runner{Info: info(), Sleep: sl.Sleep}
		var got []ai.EventType
		for e := range r.Stream(t.Context(), s.attempt) {
			got = append(got, e.Type)
			if len(got) == k {
				break
			}
		}
		if diff := cmp.Diff(providertest.Types(all[:k]), got); diff != "" {
			t.Errorf("stop after %d: events (-want +got):\n%s", k, diff)
		}
		// Every start but one the consumer stopped at began an attempt, and
		// every retry_start but one it stopped at was followed by a wait.
		starts, waits := 0, 0
		for _, typ := range got {
			switch typ {
			case ai.EventStart:
				starts++
			case ai.EventRetryStart:
				waits++
			}
		}
		switch got[k-1] {
		case ai.EventStart:
			starts--
		case ai.EventRetryStart:
			waits--
		}
		if s.calls != starts || len(sl.Delays) != waits {
			t.Errorf("stop after %d (%s): %d attempts, %d sleeps", k, got[k-1], s.calls, len(sl.Delays))
		}
	}
}

// An attempt that keeps going after its consumer left is not followed by
// any event, retry or wait, whatever it returns.
func TestRunnerAttemptOutlivesConsumer(t *testing.T) {
	t.Parallel()
	for _, err := range []error{nil, busy(ai.ClassServer, "late")} {
		sl := &providertest.Sleeper{}
		calls := 0
		r := provider.Runner{Info: info(), Sleep: sl.Sleep}
		n := 0
		for e := range r.Stream(t.Context(), func(ctx context.Context, b *ai.Builder) (ai.StopReason, error) {
			calls++
			idx, ok := b.TextStart()
			if ok {
				t.Error("TextStart reported a consumer that had stopped as listening")
			}
			b.TextDelta(idx, "ignored")
			return ai.StopStop, err
		}) {
			n++
			if e.Type == ai.EventTextStart {
				break
			}
		}
		if n != 2 || calls != 1 || len(sl.Delays) != 0 {
			t.Errorf("err %v: %d events, %d attempts, sleeps %v", err, n, calls, sl.Delays)
		}
	}
}

// The text a secret may hide in is scrubbed everywhere the runner puts it.
func TestRunnerScrubsEveryErrorText(t *testing.T) {
	t.Parallel()
	other := "tok-another-secret"
	pe := &ai.ProviderError{Class: ai.ClassServer, Status: 500, Retryable: true, Message: "echo " + secret + " and " + other}
	s := &script{t: t, steps: []step{{err: pe}, {err: pe}, {err: pe}}}
	r := provider.Runner{Info: info(), Sleep: (&providertest.Sleeper{}).Sleep, Secrets: []string{secret, other}}
	evs, final := providertest.Collect(t, r.Stream(t.Context(), s.attempt))
	providertest.AssertNoSecret(t, evs, secret)
	providertest.AssertNoSecret(t, evs, other)
	want := "server (HTTP 500): echo [REDACTED] and [REDACTED]"
	if final.ErrorMessage != want || evs[len(evs)-1].Err.Error() != want {
		t.Errorf("final = %q, err %v", final.ErrorMessage, evs[len(evs)-1].Err)
	}
	for _, ri := range retries(evs) {
		if ri.ErrorMessage != want {
			t.Errorf("retry notice %+v", ri)
		}
	}
	if !strings.Contains(pe.Message, secret) {
		t.Errorf("the attempt's own error was changed: %q", pe.Message)
	}
}

// Without an injected Sleep the runner waits on the clock, honouring ctx.
// The bubble's clock is fake: the waits take no real time and the elapsed
// time is exact.
func TestRunnerDefaultSleep(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &script{t: t, steps: []step{{err: busy(ai.ClassServer, "a")}, {err: busy(ai.ClassServer, "b")}, {text: "ok"}}}
		r := provider.Runner{Info: info(), Policy: provider.Policy{BaseDelay: time.Second, Rand: half}}
		start := time.Now()
		_, final := providertest.Collect(t, r.Stream(t.Context(), s.attempt))
		if final.StopReason != ai.StopStop || time.Since(start) != 2250*time.Millisecond {
			t.Errorf("final %s after %s on the bubble's clock, want stop after 750ms + 1.5s", final.StopReason, time.Since(start))
		}
		// The start timestamps come from the clock too.
		if final.Timestamp != start.Add(2250*time.Millisecond).UnixMilli() {
			t.Errorf("final timestamp %d, want %d", final.Timestamp, start.Add(2250*time.Millisecond).UnixMilli())
		}

		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		time.AfterFunc(100*time.Millisecond, cancel)
		s = &script{t: t, steps: []step{{err: busy(ai.ClassServer, "a")}}}
		start = time.Now()
		evs, final := providertest.Collect(t, r.Stream(ctx, s.attempt))
		if final.StopReason != ai.StopAborted || ai.ClassOf(evs[len(evs)-1].Err) != ai.ClassAborted || time.Since(start) != 100*time.Millisecond {
			t.Errorf("final %s after %s, want aborted when ctx ended", final.StopReason, time.Since(start))
		}
	})
}

func TestSleepContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		if err := provider.SleepContext(t.Context(), 3*time.Second); err != nil || time.Since(start) != 3*time.Second {
			t.Errorf("SleepContext = %v after %s, want nil after 3s", err, time.Since(start))
		}
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(time.Second, cancel)
		start = time.Now()
		if err := provider.SleepContext(ctx, time.Hour); err != context.Canceled || time.Since(start) != time.Second {
			t.Errorf("SleepContext = %v after %s, want context.Canceled after 1s", err, time.Since(start))
		}
	})
}
