package rpc

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"syscall"
	"testing"

	"gopi/internal/interrupt"

	"gopi/pkg/exitcode"
)

func TestExitCode(t *testing.T) {
	var b bytes.Buffer
	for _, c := range []struct {
		interrupted bool
		err         error
		want        int
	}{
		{false, nil, exitcode.OK},
		{true, nil, exitcode.Interrupted},
		{false, errors.New("disk full"), exitcode.Internal},
		{false, fmt.Errorf("%w", ErrInputEnded), exitcode.Internal},
	} {
		if got := ExitCode(&b, c.interrupted, c.err); got != c.want {
			t.Errorf("ExitCode(%v, %v) = %d; want %d", c.interrupted, c.err, got, c.want)
		}
	}
	if !bytes.Contains(b.Bytes(), []byte("gopi: writing the output failed: disk full\n")) {
		t.Errorf("stderr = %q", b.String())
	}
}

// A reader gone away or one that stopped reading ends the mode as a
// signal does, said on stderr, unless stdin had ended first.
func TestExitCodeOfAReaderGone(t *testing.T) {
	for _, c := range []struct {
		err    error
		want   int
		stderr string
	}{
		{fmt.Errorf("write: %w", syscall.EPIPE), exitcode.Interrupted, "gopi: stdout was closed by its reader: rpc ended, a run going on was aborted; the session keeps what was done\n"},
		{errors.Join(ErrInputEnded, syscall.EPIPE), exitcode.OK, "gopi: stdout was closed by its reader: rpc ended, a run going on was aborted; the session keeps what was done\n"},
		{fmt.Errorf("write: %w", os.ErrDeadlineExceeded), exitcode.Interrupted, interrupt.StuckLine + "\n"},
	} {
		var b bytes.Buffer
		if got := ExitCode(&b, false, c.err); got != c.want || b.String() != c.stderr {
			t.Errorf("ExitCode(%v) = %d, stderr %q; want %d, %q", c.err, got, b.String(), c.want, c.stderr)
		}
	}
}
