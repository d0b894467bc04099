package provider

import (
	"errors"
	"fmt"
	"net"
	"os"
	"time"
)

// A server that cannot be reached is not a busy one: waiting minutes for
// it helps nobody. Such a failure is retried at most UnreachableAttempts
// times in all, each wait at most UnreachableDelay.
const (
	UnreachableAttempts = 3
	UnreachableDelay    = time.Second
)

// UnreachableError is a connection that could not be made: the host's
// name did not resolve, or nothing answered at its address.
type UnreachableError struct {
	Addr   string // host:port, or the host name that did not resolve
	Reason string // the system's words: "connection refused", "no such host"
	DNS    bool   // the name did not resolve
	Err    error
}

func (e *UnreachableError) Error() string {
	if e.DNS {
		return fmt.Sprintf("cannot find the model server's host %s (%s): check the base URL (--base-url, *_BASE_URL or the provider's baseUrl setting) and this machine's network and DNS", e.Addr, e.Reason)
	}
	return fmt.Sprintf("cannot connect to the model server at %s (%s): check the base URL (--base-url, *_BASE_URL or the provider's baseUrl setting), that the server is running, and that this machine can reach it", e.Addr, e.Reason)
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// unreachable returns err as an *UnreachableError when it is a failure
// to resolve the server's name or to open a connection to it; nil for
// any other failure (one after the connection was made).
func unreachable(err error) *UnreachableError {
	var dns *net.DNSError
	if errors.As(err, &dns) {
		why := dns.Err
		if dns.IsNotFound {
			why = "no such host"
		}
		return &UnreachableError{Addr: dns.Name, Reason: why, DNS: true, Err: err}
	}
	var op *net.OpError
	if !errors.As(err, &op) || (op.Op != "dial" && op.Op != "proxyconnect") {
		return nil
	}
	addr := ""
	if op.Addr != nil {
		addr = op.Addr.String()
	}
	why := op.Err.Error()
	var sys *os.SyscallError
	if errors.As(op.Err, &sys) {
		why = sys.Err.Error()
	}
	return &UnreachableError{Addr: addr, Reason: why, Err: err}
}
