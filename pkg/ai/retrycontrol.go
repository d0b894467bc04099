package ai

import (
	"context"
	"errors"
	"sync"
)

// RetryControl lets a user interface switch automatic retries of model
// requests off and cancel the wait before a pending retry (pi's
// set_auto_retry and abort_retry). A request finds it in its context
// (WithRetryControl); without one, retries follow the policy alone. Safe
// for concurrent use; the zero value has retries on.
type RetryControl struct {
	mu      sync.Mutex
	off     bool
	waiting chan struct{} // the pending retry's wait, closed by CancelWait
}

// ErrRetryCancelled ends a request whose pending retry was cancelled; the
// request fails with the error of its last attempt.
var ErrRetryCancelled = errors.New("Retry cancelled")

// SetEnabled switches automatic retries on or off for the requests that
// fail from now on.
func (c *RetryControl) SetEnabled(on bool) {
	c.mu.Lock()
	c.off = !on
	c.mu.Unlock()
}

// Enabled reports whether failed requests are retried (a nil control: yes).
func (c *RetryControl) Enabled() bool {
	if c == nil {
		return true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return !c.off
}

// CancelWait ends the wait before a pending retry, which then is not
// sent; it reports whether a retry was pending.
func (c *RetryControl) CancelWait() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.waiting == nil {
		return false
	}
	close(c.waiting)
	c.waiting = nil
	return true
}

// Wait registers a retry's wait: the channel is closed when CancelWait
// ends it; done unregisters it. A nil control's channel never closes.
func (c *RetryControl) Wait() (cancelled <-chan struct{}, done func()) {
	if c == nil {
		return nil, func() {}
	}
	ch := make(chan struct{})
	c.mu.Lock()
	c.waiting = ch
	c.mu.Unlock()
	return ch, func() {
		c.mu.Lock()
		if c.waiting == ch {
			c.waiting = nil
		}
		c.mu.Unlock()
	}
}

type retryControlKey struct{}

// WithRetryControl returns ctx carrying c for the requests made under it.
func WithRetryControl(ctx context.Context, c *RetryControl) context.Context {
	return context.WithValue(ctx, retryControlKey{}, c)
}

// RetryControlFrom returns the control ctx carries (nil when none).
func RetryControlFrom(ctx context.Context) *RetryControl {
	c, _ := ctx.Value(retryControlKey{}).(*RetryControl)
	return c
}
