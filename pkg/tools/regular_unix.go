//go:build unix

package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"gopi/internal/filekind"
)

// openRegular opens path for reading if, and only if, it is a regular file
// (symbolic links followed), and returns it with its fstat.
//
// The path is stat'ed first, so a pipe, socket or device is refused without
// ever being opened (opening some devices has effects of its own). The open
// itself passes O_NONBLOCK and O_NOCTTY, so a path swapped for a FIFO or a
// terminal between the stat and the open cannot block it either; the opened
// descriptor's own mode is then checked again, and only a regular file gets
// its O_NONBLOCK cleared and is handed out.
//
// This is also why read refuses /dev/null: it is a character device, and
// telling the harmless devices from the ones that block or never end
// (/dev/tty, /dev/zero, /dev/stdin) by name is a list that is never
// complete. A model gains nothing from reading /dev/null, and bash is there
// for anything that really needs a device.
func openRegular(path string) (*os.File, fs.FileInfo, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if err := checkRegular(st); err != nil {
		return nil, st, err
	}
	fd, err := openNonblock(path)
	if err != nil {
		return nil, nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	if err := regularFD(fd); err != nil {
		syscall.Close(fd)
		return nil, nil, err
	}
	f := os.NewFile(uintptr(fd), path)
	st, err = f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, st, nil
}

// regularFD checks that an opened descriptor is a regular file and puts it
// back into blocking mode (O_NONBLOCK means nothing for regular files on
// Linux, but other systems and file systems may honour it). It runs before
// os.NewFile, so a regular file never enters Go's poller.
func regularFD(fd int) error {
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return fmt.Errorf("fstat: %w", err)
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return &notRegularError{mode: modeOf(uint32(st.Mode))}
	}
	if err := syscall.SetNonblock(fd, false); err != nil {
		return fmt.Errorf("clear O_NONBLOCK: %w", err)
	}
	return nil
}

// modeOf turns the file type bits of a raw stat into an fs.FileMode.
func modeOf(m uint32) fs.FileMode { return filekind.ModeOf(m) }

// openNonblock opens path read-only without waiting for a pipe's writer or
// a device, retrying when a signal interrupts the call.
func openNonblock(path string) (int, error) {
	for {
		fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
		if !errors.Is(err, syscall.EINTR) {
			return fd, err
		}
	}
}
