package provider

import (
	"context"
	"errors"
	"net"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"gopi/pkg/ai"
)

// A connection that cannot be made was a plain retryable network error:
// ten attempts over minutes, and "dial tcp …: connect: connection
// refused" for a message. It is retried at most UnreachableAttempts
// times in all, each wait at most UnreachableDelay, and says in plain
// words which address failed and what to check.
func TestUnreachableServer(t *testing.T) {
	refused := &url.Error{Op: "Post", URL: "http://127.0.0.1:1/v1/messages", Err: &net.OpError{Op: "dial", Net: "tcp",
		Addr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1}, Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}}
	noHost := &url.Error{Op: "Post", URL: "https://api.example.invalid/v1", Err: &net.OpError{Op: "dial", Net: "tcp",
		Err: &net.DNSError{Name: "api.example.invalid", Err: "no such host", IsNotFound: true}}}
	midStream := &url.Error{Op: "Post", URL: "http://127.0.0.1:1/v1/messages", Err: &net.OpError{Op: "read", Net: "tcp", Err: errors.New("connection reset by peer")}}
	for _, tc := range []struct {
		name     string
		err      error
		want     string // in the message; "" for a plain network error
		attempts int
	}{
		{"refused", refused, "cannot connect to the model server at 127.0.0.1:1 (connection refused): check the base URL", UnreachableAttempts},
		{"no such host", noHost, "cannot find the model server's host api.example.invalid (no such host): check the base URL", UnreachableAttempts},
		{"after connecting", midStream, "", 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &Conn{}
			c.ctx, c.cancel = context.WithCancelCause(t.Context())
			defer c.cancel(nil)
			err := c.Err(tc.err)
			var pe *ai.ProviderError
			if !errors.As(err, &pe) || pe.Class != ai.ClassNetwork || !pe.Retryable {
				t.Fatalf("%#v", err)
			}
			if tc.want != "" && (!strings.Contains(pe.Message, tc.want) || strings.Contains(pe.Message, "dial")) {
				t.Errorf("message %q, want %q and no dial jargon", pe.Message, tc.want)
			}
			calls, waits := 0, []time.Duration{}
			r := Runner{Policy: Policy{MaxAttempts: 10, BaseDelay: 2 * time.Second, Rand: func() float64 { return 0.5 }},
				Sleep: func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }}
			for range r.Stream(t.Context(), func(context.Context, *ai.Builder) (ai.StopReason, error) { calls++; return "", err }) {
			}
			if calls != tc.attempts {
				t.Errorf("%d attempts, want %d", calls, tc.attempts)
			}
			for _, w := range waits {
				if tc.want != "" && w > UnreachableDelay {
					t.Errorf("waited %s before a retry, want at most %s", w, UnreachableDelay)
				}
			}
		})
	}
}
