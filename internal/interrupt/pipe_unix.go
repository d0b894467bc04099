//go:build unix

package interrupt

import (
	"errors"
	"syscall"
)

// IsBrokenPipe reports a write to a pipe whose reader is gone.
func IsBrokenPipe(err error) bool { return errors.Is(err, syscall.EPIPE) }
