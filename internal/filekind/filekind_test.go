package filekind

import (
	"errors"
	"io/fs"
	"syscall"
	"testing"
)

func TestOf(t *testing.T) {
	for m, want := range map[fs.FileMode]string{
		fs.ModeDir | 0o755:                "a folder",
		fs.ModeNamedPipe:                  "a named pipe (FIFO)",
		fs.ModeSocket:                     "a socket",
		fs.ModeDevice | fs.ModeCharDevice: "a character device",
		fs.ModeDevice:                     "a block device",
		fs.ModeSymlink | 0o777:            "a symbolic link",
		0o644:                             "a regular file",
		fs.ModeIrregular:                  "a special file (mode ?---------)",
	} {
		if got := Of(m); got != want {
			t.Errorf("Of(%v) = %q, want %q", m, got, want)
		}
	}
}

func TestProblem(t *testing.T) {
	for err, want := range map[error]string{
		&fs.PathError{Op: "stat", Path: "x", Err: fs.ErrNotExist}:     "no such file or folder",
		&fs.PathError{Op: "open", Path: "x", Err: fs.ErrPermission}:   "permission denied",
		&fs.PathError{Op: "stat", Path: "f/x", Err: syscall.ENOTDIR}:  "a part of the path is a file, not a folder",
		&fs.PathError{Op: "open", Path: "x", Err: errors.New("busy")}: "busy",
		errors.New("odd"): "odd",
	} {
		if got := Problem(err); got != want {
			t.Errorf("Problem(%v) = %q, want %q", err, got, want)
		}
	}
}
