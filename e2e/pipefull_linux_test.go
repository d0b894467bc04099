package e2e

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// stdoutFull reports that the pipe that is process pid's stdout has no
// room left: each of its slots holds a write nobody read, so the
// process's next write waits for a reader (a write that fits the last
// slot's page aside). It asks the pipe itself, through a write end
// opened for the moment.
func stdoutFull(pid int) (bool, error) {
	fd, err := unix.Open("/proc/"+strconv.Itoa(pid)+"/fd/1", unix.O_WRONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return false, &os.PathError{Op: "open", Path: "stdout of " + strconv.Itoa(pid), Err: err}
	}
	defer unix.Close(fd)
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLOUT}}
	if _, err := unix.Poll(fds, 0); err != nil {
		return false, err
	}
	return fds[0].Revents&unix.POLLOUT == 0, nil
}
