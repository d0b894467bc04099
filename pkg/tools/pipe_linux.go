package tools

import (
	"os"

	"golang.org/x/sys/unix"
)

// pipeEmpty reports whether nothing is waiting to be read from the pipe r
// (or its pending bytes cannot be counted). TIOCINQ is Linux's FIONREAD.
func pipeEmpty(r *os.File) bool {
	sc, err := r.SyscallConn()
	if err != nil {
		return true
	}
	n, ioErr := 0, error(nil)
	if err := sc.Control(func(fd uintptr) { n, ioErr = unix.IoctlGetInt(int(fd), unix.TIOCINQ) }); err != nil || ioErr != nil {
		return true
	}
	return n == 0
}
