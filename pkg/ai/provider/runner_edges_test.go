package provider_test

// The runner's edges: the caller ending a request, a failing wait, the
// consumer stopping early, the clock, and scrubbing.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"gopi/pkg/ai"
	"gopi/pkg/ai/provider"
	"gopi/pkg/ai/provider/providertest"
)

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
	if end := evs[2].Retry; end.Success || end.ErrorMessage != msg || end.Attempt != 1 || end.MaxAttempts != 10 {
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
	// Ticks 1 and 3 start the attempts: the runner reads the clock at the
	// failure in between too, to keep to its time budget.
	if diff := cmp.Diff([]int64{1_700_000_001_000, 1_700_000_003_000}, stamps); diff != "" {
		t.Errorf("start timestamps (-want +got):\n%s", diff)
	}
	if final.Timestamp != 1_700_000_003_000 {
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
	r := provider.Runner{Info: info(), Policy: provider.Policy{MaxAttempts: 3}, Sleep: (&providertest.Sleeper{}).Sleep, Secrets: []string{secret, other}}
	evs, final := providertest.Collect(t, r.Stream(t.Context(), s.attempt))
	providertest.AssertNoSecret(t, evs, secret)
	providertest.AssertNoSecret(t, evs, other)
	want := "server (HTTP 500): echo [REDACTED] and [REDACTED]"
	final3 := want + " (gave up after 3 attempts)"
	if final.ErrorMessage != final3 || evs[len(evs)-1].Err.Error() != final3 {
		t.Errorf("final = %q, err %v", final.ErrorMessage, evs[len(evs)-1].Err)
	}
	for _, ri := range retries(evs) {
		if ri.ErrorMessage != want && ri.ErrorMessage != final3 {
			t.Errorf("retry notice %+v", ri)
		}
	}
	if !strings.Contains(pe.Message, secret) {
		t.Errorf("the attempt's own error was changed: %q", pe.Message)
	}
}

// A cause that repeats a secret is scrubbed too: an event's error chain,
// unwrapped to the end, holds no secret; causes without one are kept as
// they are, for errors.Is.
func TestRunnerScrubsErrorCauses(t *testing.T) {
	t.Parallel()
	cause := errors.New("server said: bad key " + secret)
	tests := []struct {
		name string
		err  error
		want string // the cause's text after scrubbing
	}{
		{"plain error", fmt.Errorf("decode: %w", cause), "decode: server said: bad key [REDACTED]"},
		{"provider error with a cause", &ai.ProviderError{Class: ai.ClassAuth, Status: 401, Message: "bad key", Err: cause}, "server said: bad key [REDACTED]"},
		{"joined causes", &ai.ProviderError{Class: ai.ClassServer, Message: "x", Err: errors.Join(io.ErrUnexpectedEOF, cause)}, "unexpected EOF\nserver said: bad key [REDACTED]"},
		{"a cause behind a summary", &ai.ProviderError{Class: ai.ClassServer, Message: "x", Err: &summary{[]error{io.ErrUnexpectedEOF, cause}}}, "2 failures"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &script{t: t, steps: []step{{err: tt.err}}}
			r := provider.Runner{Info: info(), Secrets: []string{secret}}
			evs, _ := providertest.Collect(t, r.Stream(t.Context(), s.attempt))
			providertest.AssertNoSecret(t, evs, secret)
			if got := errors.Unwrap(evs[len(evs)-1].Err); got == nil || got.Error() != tt.want {
				t.Errorf("cause = %v, want %q", got, tt.want)
			}
		})
	}
	inner := &ai.ProviderError{Class: ai.ClassOverloaded, Message: "inner"}
	for _, clean := range []error{io.ErrUnexpectedEOF, inner, &summary{[]error{io.ErrClosedPipe, io.ErrUnexpectedEOF}}} {
		kept := &ai.ProviderError{Class: ai.ClassNetwork, Message: "cut", Err: clean}
		r := provider.Runner{Info: info(), Secrets: []string{secret}}
		evs, _ := providertest.Collect(t, r.Stream(t.Context(), (&script{t: t, steps: []step{{err: kept}}}).attempt))
		if got := errors.Unwrap(evs[len(evs)-1].Err); got != clean {
			t.Errorf("cause = %v, want the clean cause %v kept as it is", got, clean)
		}
	}
}

// summary is an error that names its causes only by their number.
type summary struct{ errs []error }

func (s *summary) Error() string   { return fmt.Sprintf("%d failures", len(s.errs)) }
func (s *summary) Unwrap() []error { return s.errs }

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
