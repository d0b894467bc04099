package rpc

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

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
