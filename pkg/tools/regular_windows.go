package tools

import (
	"io/fs"
	"os"
)

// openRegular opens path for reading if, and only if, it is a regular file
// (symbolic links followed), and returns it with its stat. The path is
// stat'ed first, so a device (NUL, CON, COM1) or a folder is refused
// without being opened; the opened file's own stat is checked again.
func openRegular(path string) (*os.File, fs.FileInfo, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if err := checkRegular(st); err != nil {
		return nil, st, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	st, err = f.Stat()
	if err == nil {
		err = checkRegular(st)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, st, nil
}
