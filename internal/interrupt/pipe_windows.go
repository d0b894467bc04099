package interrupt

import (
	"errors"
	"syscall"

	"golang.org/x/sys/windows"
)

// IsBrokenPipe reports a write to a pipe whose reader is gone: Windows
// says ERROR_NO_DATA (the pipe is being closed) or ERROR_BROKEN_PIPE.
func IsBrokenPipe(err error) bool {
	return errors.Is(err, syscall.EPIPE) || errors.Is(err, windows.ERROR_NO_DATA) || errors.Is(err, windows.ERROR_BROKEN_PIPE)
}
