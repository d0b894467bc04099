// Package filekind names what a file is, in the one vocabulary every
// message of gopi uses ("a folder", "a named pipe (FIFO)", ...), says in
// it what is wrong with a path that cannot be read (Problem), and turns a
// raw stat's type bits into an fs.FileMode.
package filekind

import (
	"errors"
	"io/fs"
	"syscall"
)

// Of names what a file of mode m is, for a message: "a folder", "a named
// pipe (FIFO)", "a socket", "a character device", "a block device", "a
// symbolic link", "a regular file", else "a special file (mode …)".
func Of(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
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
	case m.IsRegular():
		return "a regular file"
	}
	return "a special file (mode " + m.String() + ")"
}

// Problem says what is wrong with a path an input names, in the same
// vocabulary, without the system call: "no such file or folder",
// "permission denied", "a part of the path is a file, not a folder".
func Problem(err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "no such file or folder"
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	case errors.Is(err, syscall.ENOTDIR):
		return "a part of the path is a file, not a folder"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
