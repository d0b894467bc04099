package tools

import (
	"errors"
	"fmt"
	"io/fs"

	"gopi/internal/filekind"
)

// notRegularError says a path is something other than a regular file: a
// folder, a named pipe, a socket, a device. The file tools refuse such
// paths before they open them, because opening or reading a pipe or a
// terminal blocks until someone else writes, and a tool call must never
// hang on that.
type notRegularError struct {
	mode fs.FileMode
}

func (e *notRegularError) Error() string {
	return fmt.Sprintf("it is %s, not a regular file", filekind.Of(e.mode))
}

// checkRegular returns a *notRegularError unless st describes a regular file.
func checkRegular(st fs.FileInfo) error {
	if !st.Mode().IsRegular() {
		return &notRegularError{mode: st.Mode()}
	}
	return nil
}

// isNotRegular reports whether err says the path is not a regular file,
// and whether it is a folder (which the tools word differently).
func isNotRegular(err error) (notRegular, dir bool) {
	var nr *notRegularError
	if !errors.As(err, &nr) {
		return false, false
	}
	return true, nr.mode.IsDir()
}
