package provider

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"time"

	"gopi/pkg/ai"
)

// Attempt sends the request once and streams the response into b. It
// returns the stop reason when the response ended with its terminal event,
// or an error (ideally an *ai.ProviderError) without ending b: the Runner
// decides whether to retry or to fail. When a Builder method returns false
// the consumer has stopped; the attempt should return promptly, with any
// error.
type Attempt func(ctx context.Context, b *ai.Builder) (ai.StopReason, error)

// Runner runs attempts under a retry policy and emits one stream.
type Runner struct {
	Info    ai.Info
	Policy  Policy
	Now     func() time.Time                                 // nil: time.Now
	Sleep   func(ctx context.Context, d time.Duration) error // nil: a timer honouring ctx
	Secrets []string                                         // scrubbed from every error text
}

// Stream returns the event sequence of one model request: start, content
// events and done, with retry_start before every further attempt and
// retry_end before the terminal event when a retry happened.
func (r Runner) Stream(ctx context.Context, attempt Attempt) iter.Seq[ai.Event] {
	return func(yield func(ai.Event) bool) {
		stopped := false
		y := func(e ai.Event) bool {
			if stopped {
				return false
			}
			stopped = !yield(e)
			return !stopped
		}
		r.run(ctx, attempt, y, &stopped)
	}
}

func (r Runner) run(ctx context.Context, attempt Attempt, y func(ai.Event) bool, stopped *bool) {
	p := r.Policy.WithDefaults()
	var began time.Time    // the first attempt's start: the retry budget runs from it
	limit := p.MaxAttempts // the attempts the last failure allows (attempts)
	for n := 1; ; n++ {
		at := r.now()
		if n == 1 {
			began = at
		}
		b := ai.NewBuilder(r.Info, at.UnixMilli(), y)
		if !b.Start() {
			return
		}
		reason, err := attempt(ctx, b)
		if *stopped {
			return
		}
		if err == nil {
			if n > 1 && !y(retryEnd(n, limit, true, "")) {
				return
			}
			b.Done(reason)
			return
		}
		err = r.settle(ctx, err)
		ctl := ai.RetryControlFrom(ctx)
		delay, retry := next(p, n, r.now().Sub(began), err)
		retry = retry && ctl.Enabled()
		limit = attempts(p, err)
		if !retry {
			if n > 1 && !y(retryEnd(n, limit, false, err.Error())) {
				return
			}
			b.Fail(ctx, err)
			return
		}
		info := &ai.RetryInfo{Attempt: n, MaxAttempts: limit, Delay: delay, ErrorMessage: err.Error(), Usage: b.Usage()}
		// The wait is open to CancelWait before retry_start is told.
		cancelled, waited := ctl.Wait()
		if !y(ai.Event{Type: ai.EventRetryStart, Retry: info}) {
			waited()
			return
		}
		serr := r.sleepUnless(ctx, delay, cancelled)
		waited()
		if errors.Is(serr, ai.ErrRetryCancelled) {
			// Cancelled by the user: the request fails with the last
			// attempt's error, as pi's abort_retry leaves it.
			if !y(retryEnd(n+1, limit, false, serr.Error())) {
				return
			}
			fb := ai.NewBuilder(r.Info, r.now().UnixMilli(), y)
			if fb.Start() {
				fb.Fail(ctx, err)
			}
			return
		}
		if serr != nil {
			cerr := r.settle(ctx, serr)
			if !y(retryEnd(n, limit, false, cerr.Error())) {
				return
			}
			fb := ai.NewBuilder(r.Info, r.now().UnixMilli(), y)
			if fb.Start() {
				fb.Fail(ctx, cerr)
			}
			return
		}
	}
}

// attempts is how many attempts a request failing with err gets: the
// policy's, and no more than UnreachableAttempts when the server could
// not be reached.
func attempts(p Policy, err error) int {
	if isUnreachable(err) {
		return min(p.MaxAttempts, UnreachableAttempts)
	}
	return p.MaxAttempts
}

func isUnreachable(err error) bool {
	var ue *UnreachableError
	return errors.As(err, &ue)
}

func retryEnd(n, limit int, ok bool, msg string) ai.Event {
	return ai.Event{Type: ai.EventRetryEnd, Retry: &ai.RetryInfo{
		Attempt: n, MaxAttempts: limit, Success: ok, ErrorMessage: msg,
	}}
}

// next decides whether failed attempt n is retried and after how long,
// elapsed into the request. The server's wait hint is honoured, "now"
// included, up to MaxRetryAfter; without one the backoff applies. When it
// gives up on a retryable failure, err's message says why.
func next(p Policy, n int, elapsed time.Duration, err error) (time.Duration, bool) {
	var pe *ai.ProviderError
	if !errors.As(err, &pe) || !pe.Retryable {
		return 0, false
	}
	if n >= attempts(p, err) {
		if n > 1 {
			pe.Message += fmt.Sprintf(" (gave up after %d attempts)", n)
		}
		return 0, false
	}
	if pe.RetryAfter > p.MaxRetryAfter {
		pe.Message += fmt.Sprintf(" (the server asked to retry after %s, more than the %s gopi waits)",
			pe.RetryAfter.Round(time.Second), p.MaxRetryAfter)
		return 0, false
	}
	delay := p.Backoff(n)
	if pe.RetryAfter > 0 || pe.RetryNow {
		delay = pe.RetryAfter
	}
	if isUnreachable(err) {
		delay = min(delay, UnreachableDelay)
	}
	if elapsed+delay > p.MaxTotal {
		pe.Message += fmt.Sprintf(" (gave up after %d attempts in %s: a retry in %s would pass the %s limit)",
			n, elapsed.Round(time.Second), delay.Round(time.Millisecond), p.MaxTotal)
		return 0, false
	}
	return delay, true
}

// settle makes err a scrubbed *ai.ProviderError: the caller's
// cancellation becomes aborted (or timeout for an expired deadline) and is
// never retried, whatever the attempt reported.
func (r Runner) settle(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return &ai.ProviderError{Class: ai.ClassOf(cerr), Message: "request " + reasonOf(cerr), Err: cerr}
	}
	var pe *ai.ProviderError
	if !errors.As(err, &pe) {
		pe = &ai.ProviderError{Class: ai.ClassInternal, Message: err.Error(), Err: err}
	} else {
		cp := *pe
		pe = &cp
	}
	pe.Message = Scrub(pe.Message, r.Secrets...)
	if pe.Err != nil && leaks(pe.Err, r.Secrets) {
		// The cause repeats a secret: keep its words, scrubbed, and let
		// its chain go (a clean cause stays, for errors.Is).
		pe.Err = errors.New(Scrub(pe.Err.Error(), r.Secrets...))
	}
	return pe
}

// leaks reports whether err or any error it wraps shows a secret.
func leaks(err error, secrets []string) bool {
	if err == nil {
		return false
	}
	if s := err.Error(); Scrub(s, secrets...) != s {
		return true
	}
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		return leaks(u.Unwrap(), secrets)
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			if leaks(e, secrets) {
				return true
			}
		}
	}
	return false
}

func reasonOf(err error) string {
	if errors.Is(err, context.DeadlineExceeded) {
		return "deadline exceeded"
	}
	return "cancelled"
}

func (r Runner) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

// sleepUnless waits for d; a close of cancelled ends the wait with
// ai.ErrRetryCancelled.
func (r Runner) sleepUnless(ctx context.Context, d time.Duration, cancelled <-chan struct{}) error {
	if cancelled == nil {
		return r.sleep(ctx, d)
	}
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		select {
		case <-cancelled:
			stop()
		case <-sctx.Done():
		}
	}()
	err := r.sleep(sctx, d)
	stop()
	<-watched
	select {
	case <-cancelled:
		if ctx.Err() == nil {
			return ai.ErrRetryCancelled
		}
	default:
	}
	return err
}

func (r Runner) sleep(ctx context.Context, d time.Duration) error {
	if r.Sleep != nil {
		return r.Sleep(ctx, d)
	}
	return SleepContext(ctx, d)
}

// SleepContext waits for d or until ctx ends.
func SleepContext(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
