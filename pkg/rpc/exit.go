package rpc

import (
	"errors"
	"fmt"
	"io"

	"gopi/internal/interrupt"
	"gopi/pkg/exitcode"
)

// ExitCode is the exit code of an rpc mode whose Serve ended with the
// output error err (nil: none); interrupted: a signal ended it. A stdout
// whose reader went away, or stopped reading once a run was cancelled,
// ends it as a signal does (130), unless stdin had ended first (the
// client was done: 0); either is said on stderr.
func ExitCode(stderr io.Writer, interrupted bool, err error) int {
	switch {
	case err == nil:
	case interrupt.IsBrokenPipe(err):
		fmt.Fprintln(stderr, "gopi: stdout was closed by its reader: rpc ended, a run going on was aborted; the session keeps what was done")
	case interrupt.IsStuck(err):
		fmt.Fprintln(stderr, interrupt.StuckLine)
	default:
		fmt.Fprintf(stderr, "gopi: writing the output failed: %v\n", err)
		return exitcode.Internal
	}
	if interrupted || (err != nil && !errors.Is(err, ErrInputEnded)) {
		return exitcode.Interrupted
	}
	return exitcode.OK
}
