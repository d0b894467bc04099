package provider

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"gopi/pkg/ai"
)

// errIdle is the cancellation cause of an attempt whose stream went quiet.
var errIdle = errors.New("stream idle timeout")

// Conn is one attempt's HTTP exchange. Its context is cancelled when no
// byte arrives for the idle timeout (waiting for the response headers
// included), which makes any blocked read return at once.
type Conn struct {
	Resp *http.Response
	// Body reads the response body and re-arms the idle timer on every byte.
	Body io.Reader
	// RequestBytes is the size of the request body sent (0 when unknown).
	RequestBytes int64

	ctx    context.Context
	cancel context.CancelCauseFunc
	timer  *time.Timer
	idle   time.Duration
}

// Open sends req (built without a context) under ctx with an idle timeout.
// A transport failure is returned already classified (see Conn.Err).
// The caller must Close the Conn when it is not nil.
func Open(ctx context.Context, client *http.Client, req *http.Request, idle time.Duration) (*Conn, error) {
	if idle <= 0 {
		idle = DefaultIdleTimeout
	}
	c := &Conn{idle: idle, RequestBytes: max(req.ContentLength, 0)}
	c.ctx, c.cancel = context.WithCancelCause(ctx)
	c.timer = time.AfterFunc(idle, func() { c.cancel(errIdle) })
	resp, err := client.Do(req.WithContext(c.ctx))
	if err != nil {
		err = c.Err(err)
		c.Close()
		return nil, err
	}
	// The headers are data too: the wait for the first byte of the body
	// starts now, not when the request was sent.
	c.timer.Reset(idle)
	c.Resp = resp
	c.Body = &idleReader{r: resp.Body, c: c}
	return c, nil
}

// Close stops the timer, cancels the exchange and closes the body.
func (c *Conn) Close() {
	c.timer.Stop()
	c.cancel(context.Canceled)
	if c.Resp != nil {
		_ = c.Resp.Body.Close()
	}
}

// Err classifies a failure of this exchange: the caller's cancellation is
// returned as the context's error, a stall as a retryable timeout (a stuck
// connection is not a stuck provider), anything else as a retryable
// network failure (one that could not connect says so in plain words:
// UnreachableError).
func (c *Conn) Err(err error) error {
	if err == nil {
		return nil
	}
	if parent := context.Cause(c.ctx); errors.Is(parent, errIdle) {
		return &ai.ProviderError{
			Class:     ai.ClassTimeout,
			Retryable: true,
			Message:   fmt.Sprintf("no data from the server for %s (stream idle timeout)", c.idle),
			Err:       errIdle,
		}
	}
	var pe *ai.ProviderError
	if errors.As(err, &pe) {
		return err
	}
	if cerr := c.parentErr(); cerr != nil {
		return cerr
	}
	if ue := unreachable(err); ue != nil {
		return &ai.ProviderError{Class: ai.ClassNetwork, Retryable: true, Message: ue.Error(), Err: ue}
	}
	return &ai.ProviderError{Class: ai.ClassNetwork, Retryable: true, Message: err.Error(), Err: err}
}

// parentErr is the caller's context error, if it ended.
func (c *Conn) parentErr() error {
	cause := context.Cause(c.ctx)
	if cause == nil || errors.Is(cause, errIdle) {
		return nil
	}
	if errors.Is(cause, context.Canceled) || errors.Is(cause, context.DeadlineExceeded) {
		return cause
	}
	return nil
}

type idleReader struct {
	r io.Reader
	c *Conn
}

func (i *idleReader) Read(p []byte) (int, error) {
	n, err := i.r.Read(p)
	if n > 0 {
		i.c.timer.Reset(i.c.idle)
	}
	return n, err
}
