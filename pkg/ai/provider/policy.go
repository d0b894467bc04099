// Package provider holds what the HTTP model adapters (anthropic, openai)
// share: the retry policy and the attempt loop that turns failed attempts
// into retry events, the per-attempt connection with its stream idle
// timeout, the classification of provider errors into ai.Class values,
// credential scrubbing, and the normalisation of a conversation's history
// before it is sent.
//
// Guarantees: only the model request is ever repeated; a failed attempt is
// followed by retry_start and its partial output is never part of the
// final message; every stream ends with exactly one done or error event;
// no configured secret appears in an error, event or message.
package provider

import (
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Retry policy defaults: a busy provider gets ten attempts over at most
// five minutes, as patient as people expect a coding agent to be.
const (
	DefaultMaxAttempts   = 10
	DefaultBaseDelay     = 2 * time.Second
	DefaultMaxDelay      = 30 * time.Second
	DefaultMaxRetryAfter = 60 * time.Second
	DefaultMaxTotal      = 5 * time.Minute
	DefaultIdleTimeout   = 120 * time.Second
)

// Policy says how often and how patiently a failed model request is retried.
// The zero value means the defaults.
type Policy struct {
	// MaxAttempts counts the first attempt too; 1 disables retries.
	MaxAttempts int
	// BaseDelay is the wait after the first failure; it doubles per attempt.
	BaseDelay time.Duration
	// MaxDelay caps the exponential backoff.
	MaxDelay time.Duration
	// MaxRetryAfter is the longest server-requested wait (retry-after)
	// honoured; a server asking for more fails the request at once.
	MaxRetryAfter time.Duration
	// MaxTotal bounds the time spent on one request, attempts and waits
	// together: no retry starts whose wait would end past it.
	MaxTotal time.Duration
	// Rand returns a number in [0, 1) for jitter; nil uses math/rand/v2.
	Rand func() float64
}

// WithDefaults fills unset fields.
func (p Policy) WithDefaults() Policy {
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = DefaultMaxAttempts
	}
	if p.BaseDelay <= 0 {
		p.BaseDelay = DefaultBaseDelay
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = DefaultMaxDelay
	}
	if p.MaxRetryAfter <= 0 {
		p.MaxRetryAfter = DefaultMaxRetryAfter
	}
	if p.MaxTotal <= 0 {
		p.MaxTotal = DefaultMaxTotal
	}
	if p.Rand == nil {
		p.Rand = rand.Float64
	}
	return p
}

// Backoff returns the wait after failed attempt n (from 1): BaseDelay
// doubled per attempt, capped at MaxDelay, with "equal jitter" (half fixed,
// half random) so that clients failing together do not retry together.
func (p Policy) Backoff(n int) time.Duration {
	p = p.WithDefaults()
	d := p.BaseDelay
	for i := 1; i < n && d < p.MaxDelay; i++ {
		if d > p.MaxDelay/2 {
			d = p.MaxDelay // doubling would pass the cap, or overflow
			continue
		}
		d *= 2
	}
	d = min(d, p.MaxDelay)
	half := d / 2
	return half + time.Duration(p.Rand()*float64(d-half))
}

// RetryAfter reads the server's wait hint: retry-after-ms (milliseconds),
// then retry-after (seconds or an HTTP date, relative to now). now is true
// when the server asked for an immediate retry (a hint of 0, or a date
// already past); both are zero when there is no hint. A hint past the
// largest Duration saturates; NaN is no hint.
func RetryAfter(h http.Header, at time.Time) (d time.Duration, now bool) {
	if v := strings.TrimSpace(h.Get("retry-after-ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			return hint(saturate(ms * float64(time.Millisecond)))
		}
	}
	v := strings.TrimSpace(h.Get("retry-after"))
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if !(s >= 0) { // negative, or NaN
			return 0, false
		}
		return hint(saturate(s * float64(time.Second)))
	}
	if t, err := http.ParseTime(v); err == nil {
		return hint(max(t.Sub(at), 0))
	}
	return 0, false
}

func hint(d time.Duration) (time.Duration, bool) {
	if d <= 0 {
		return 0, true
	}
	return d, false
}

// saturate converts a positive number of nanoseconds to a Duration; one
// too large to convert (a conversion Go leaves undefined) is the largest.
func saturate(ns float64) time.Duration {
	if ns >= math.MaxInt64 {
		return math.MaxInt64
	}
	return time.Duration(ns)
}
