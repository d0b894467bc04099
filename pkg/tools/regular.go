package tools

import (
	"errors"
	"fmt"
	"io/fs"
)

// notRegularError says a path is something other than a regular file: a
// directory, a named pipe, a socket, a device. The file tools refuse such
// paths before they open them, because opening or reading a pipe or a
// terminal blocks until someone else writes, and a tool call must never
// hang on that.
type notRegularError struct {
	mode fs.FileMode
}

func (e *notRegularError) Error() string {
	return fmt.Sprintf("it is %s, not a regular file", fileKind(e.mode))
}

// fileKind names what a non-regular mode is, for the model to read.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "a special file (mode " + m.String() + ")"
}

// checkRegular returns a *notRegularError unless st describes a regular file.
func checkRegular(st fs.FileInfo) error {
	if !st.Mode().IsRegular() {
		return &notRegularError{mode: st.Mode()}
	}
	return nil
}

// isNotRegular reports whether err says the path is not a regular file,
// and whether it is a directory (which the tools word differently).
func isNotRegular(err error) (notRegular, dir bool) {
	var nr *notRegularError
	if !errors.As(err, &nr) {
		return false, false
	}
	return true, nr.mode.IsDir()
}
