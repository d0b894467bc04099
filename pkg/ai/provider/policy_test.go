package provider_test

import (
	"math"
	"net/http"
	"testing"
	"time"

	"gopi/pkg/ai/provider"
)

func TestPolicyWithDefaults(t *testing.T) {
	t.Parallel()
	for _, p := range []provider.Policy{{}, {MaxAttempts: -1, BaseDelay: -1, MaxDelay: -1, MaxRetryAfter: -1, MaxTotal: -1}} {
		d := p.WithDefaults()
		if d.MaxAttempts != 10 || d.BaseDelay != 2*time.Second || d.MaxDelay != 30*time.Second ||
			d.MaxRetryAfter != 60*time.Second || d.MaxTotal != 5*time.Minute || d.Rand == nil {
			t.Errorf("%+v.WithDefaults() = %+v", p, d)
		}
		if r := d.Rand(); r < 0 || r >= 1 {
			t.Errorf("default jitter %v outside [0, 1)", r)
		}
	}
	// The smallest set values are kept.
	p := provider.Policy{MaxAttempts: 1, BaseDelay: 1, MaxDelay: 1, MaxRetryAfter: 1, MaxTotal: 1, Rand: func() float64 { return 0.25 }}
	d := p.WithDefaults()
	if d.MaxAttempts != 1 || d.BaseDelay != 1 || d.MaxDelay != 1 || d.MaxRetryAfter != 1 || d.MaxTotal != 1 || d.Rand() != 0.25 {
		t.Errorf("%+v.WithDefaults() = %+v", p, d)
	}
}

func TestBackoff(t *testing.T) {
	t.Parallel()
	zero := func() float64 { return 0 }
	p := provider.Policy{BaseDelay: time.Second, MaxDelay: 5 * time.Second, Rand: zero}
	// Half of BaseDelay doubled per attempt, capped at half of MaxDelay.
	want := []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 2500 * time.Millisecond, 2500 * time.Millisecond}
	for i, w := range want {
		if got := p.Backoff(i + 1); got != w {
			t.Errorf("Backoff(%d) = %s, want %s", i+1, got, w)
		}
	}
	// A late attempt neither overflows nor passes the cap.
	for _, n := range []int{40, 100, 1 << 20} {
		if got := p.Backoff(n); got != 2500*time.Millisecond {
			t.Errorf("Backoff(%d) = %s, want 2.5s", n, got)
		}
	}
	// Doubling stops at the cap even where it would pass the largest
	// Duration.
	for _, tt := range []struct {
		p    provider.Policy
		n    int
		want time.Duration
	}{
		{provider.Policy{BaseDelay: time.Second, MaxDelay: math.MaxInt64, Rand: zero}, 64, math.MaxInt64 / 2},
		{provider.Policy{BaseDelay: time.Second, MaxDelay: math.MaxInt64, Rand: zero}, 34, 1 << 32 * time.Second},
		{provider.Policy{BaseDelay: 1 << 62, MaxDelay: 1 << 62, Rand: zero}, 2, 1 << 61},
		{provider.Policy{BaseDelay: 3 << 61, MaxDelay: math.MaxInt64, Rand: zero}, 2, math.MaxInt64 / 2},
		// Doubling to just under an odd cap stays a doubling.
		{provider.Policy{BaseDelay: 2, MaxDelay: 5, Rand: func() float64 { return 0.9 }}, 2, 3},
		{provider.Policy{BaseDelay: 2, MaxDelay: 5, Rand: func() float64 { return 0.9 }}, 3, 4},
		// A base over the cap is capped from the first attempt.
		{provider.Policy{BaseDelay: 10 * time.Second, MaxDelay: 5 * time.Second, Rand: zero}, 1, 2500 * time.Millisecond},
	} {
		if got := tt.p.Backoff(tt.n); got != tt.want {
			t.Errorf("Backoff(%d) with base %d, cap %d = %d, want %d", tt.n, tt.p.BaseDelay, tt.p.MaxDelay, got, tt.want)
		}
	}
	// The random half spreads evenly over [d/2, d).
	for _, tt := range []struct {
		r    float64
		n    int
		want time.Duration
	}{{0.5, 1, 750 * time.Millisecond}, {0.5, 2, 1500 * time.Millisecond}, {0.25, 3, 2500 * time.Millisecond}, {0.5, 9, 3750 * time.Millisecond}} {
		p.Rand = func() float64 { return tt.r }
		if got := p.Backoff(tt.n); got != tt.want {
			t.Errorf("jitter %v: Backoff(%d) = %s, want %s", tt.r, tt.n, got, tt.want)
		}
	}
	p.Rand = func() float64 { return 0.999999 }
	if got := p.Backoff(1); got < 999*time.Millisecond || got >= time.Second {
		t.Errorf("full jitter Backoff(1) = %s, want just under 1s", got)
	}
	// The zero Policy backs off from 2s to at most 30s.
	d := provider.Policy{Rand: zero}
	if got := d.Backoff(1); got != time.Second {
		t.Errorf("default Backoff(1) = %s, want 1s", got)
	}
	if got := d.Backoff(10); got != 15*time.Second {
		t.Errorf("default Backoff(10) = %s, want 15s", got)
	}
	// Without a jitter source, the default one stays in range.
	for range 20 {
		if got := (provider.Policy{}).Backoff(1); got < time.Second || got >= 2*time.Second {
			t.Fatalf("default jitter Backoff(1) = %s, want in [1s, 2s)", got)
		}
	}
}

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	date := func(d time.Duration) string { return now.Add(d).Format(http.TimeFormat) }
	tests := []struct {
		name   string
		ms     string // retry-after-ms, "" for none
		s      string // retry-after, "" for none
		want   time.Duration
		atonce bool // the server asked for an immediate retry
	}{
		{"none", "", "", 0, false},
		{"ms wins", "250", "9", 250 * time.Millisecond, false},
		{"ms fraction", "1.5", "", 1500 * time.Microsecond, false},
		{"ms below one", "0.5", "", 500 * time.Microsecond, false},
		{"ms spaced", " 40 ", "", 40 * time.Millisecond, false},
		{"ms zero is now", "0", "3", 0, true},
		{"ms negative falls back", "-10", "3", 3 * time.Second, false},
		{"ms garbage falls back", "soon", "3", 3 * time.Second, false},
		{"ms only and zero", "0", "", 0, true},
		{"seconds", "", "7", 7 * time.Second, false},
		{"seconds fraction", "", "1.5", 1500 * time.Millisecond, false},
		{"seconds spaced", "", " 2 ", 2 * time.Second, false},
		{"seconds zero is now", "", "0", 0, true},
		{"seconds negative", "", "-3", 0, false},
		{"garbage", "", "soon", 0, false},
		{"date ahead", "", date(30 * time.Second), 30 * time.Second, false},
		{"date now", "", date(0), 0, true},
		{"date past is now", "", date(-time.Minute), 0, true},
		{"seconds below one", "", "0.5", 500 * time.Millisecond, false},
		{"one second", "", "1", time.Second, false},
		// Hints past the largest Duration saturate (and so fail at once,
		// being over any limit); NaN is no hint.
		{"ms huge", "1e300", "", math.MaxInt64, false},
		{"ms NaN falls back", "NaN", "3", 3 * time.Second, false},
		{"seconds huge", "", "1e20", math.MaxInt64, false},
		{"seconds of the largest Duration", "", "9223372036.854775807", math.MaxInt64, false},
		{"seconds infinite", "", "+Inf", math.MaxInt64, false},
		{"seconds NaN", "", "NaN", 0, false},
	}
	for _, tt := range tests {
		h := http.Header{}
		if tt.ms != "" {
			h.Set("Retry-After-Ms", tt.ms)
		}
		if tt.s != "" {
			h.Set("Retry-After", tt.s)
		}
		if got, atonce := provider.RetryAfter(h, now); got != tt.want || atonce != tt.atonce {
			t.Errorf("%s: RetryAfter(%v) = %s now=%v, want %s now=%v", tt.name, h, got, atonce, tt.want, tt.atonce)
		}
	}
}
