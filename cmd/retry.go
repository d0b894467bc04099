package cmd

import "gopi/pkg/ai/provider"

// check refuses a negative retry setting: 0 (or leaving it out) is how the
// default is asked for, and a negative number is a typo, not a wish.
func (r retrySettings) check(origin string) error {
	for _, f := range []struct {
		name string
		v    int64
	}{
		{"maxAttempts", int64(r.MaxAttempts)}, {"baseDelayMs", r.BaseDelayMs}, {"maxDelayMs", r.MaxDelayMs},
		{"maxRetryAfterMs", r.MaxRetryAfterMs}, {"maxTotalMs", r.MaxTotalMs}, {"idleTimeoutMs", r.IdleTimeoutMs},
	} {
		if f.v < 0 {
			return usageErr("%s: retry.%s is %d: give 0 or more (0 or leaving it out means the default)", origin, f.name, f.v)
		}
	}
	return nil
}

// policy is the retry policy the settings ask for; unset fields keep
// provider's defaults.
func (r retrySettings) policy() provider.Policy {
	return provider.Policy{
		MaxAttempts: r.MaxAttempts, BaseDelay: ms(r.BaseDelayMs), MaxDelay: ms(r.MaxDelayMs),
		MaxRetryAfter: ms(r.MaxRetryAfterMs), MaxTotal: ms(r.MaxTotalMs),
	}
}
