package session

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// The write lock of a session file is an exclusive flock on a sidecar file,
// <session>.lock next to the session's real path (symlinks resolved), that
// holds the pid of its holder as decimal text, and, once the session file
// exists, an exclusive flock on the session file itself, which hard links
// share (see identity.go). Readers never touch either. The holder removes
// the sidecar on close; because another process may have opened the old
// sidecar in between, a process that gets the lock checks that the path
// still names the file it locked, and retries if not.

// LockPath returns the lock file of a session file given by its real path
// (a symlink's lock is its target's).
func LockPath(session string) string { return session + ".lock" }

type fileLock struct {
	f    *os.File // the sidecar
	path string
	data *os.File // the session file, flocked; nil until it exists
}

const lockRetries = 10

func lock(session string, opts Options) (*fileLock, error) {
	real, err := realPath(session)
	if err != nil {
		return nil, fmt.Errorf("lock session %s: %w", session, err)
	}
	path := LockPath(real)
	for range lockRetries {
		l, retry, err := tryLock(session, path, opts)
		if !retry {
			return l, err
		}
	}
	return nil, fmt.Errorf("lock session %s: lock file keeps changing", session)
}

func tryLock(session, path string, opts Options) (l *fileLock, retry bool, err error) {
	f, err := opts.ops.doOpenLock(path)
	if err != nil {
		return nil, false, fmt.Errorf("lock session %s: %w", session, err)
	}
	if err := lockFile(f); err != nil {
		holder := readPID(f)
		// The holder writes its pid just after it gets the lock: a process
		// that comes in between waits a moment for the pid to name it.
		for i := 0; holder == 0 && i < 20; i++ {
			opts.ops.doSleep(time.Millisecond)
			holder = readPID(f)
		}
		f.Close()
		if errors.Is(err, errWouldBlock) {
			return nil, false, &LockedError{Path: session, PID: holder}
		}
		return nil, false, fmt.Errorf("lock session %s: %w", session, err)
	}
	if !sameFile(f, path) {
		f.Close()
		return nil, true, nil
	}
	if err := writePID(f, opts.pid()); err != nil {
		f.Close()
		return nil, false, fmt.Errorf("lock session %s: write pid: %w", session, err)
	}
	return &fileLock{f: f, path: path}, false, nil
}

func sameFile(f *os.File, path string) bool {
	a, err1 := f.Stat()
	b, err2 := os.Stat(path)
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}

func writePID(f *os.File, pid int) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err := f.WriteAt([]byte(strconv.Itoa(pid)+"\n"), 0)
	return err
}

func readPID(f *os.File) int {
	buf := make([]byte, 32)
	n, _ := f.ReadAt(buf, 0)
	pid, err := strconv.Atoi(strings.TrimSpace(string(buf[:n])))
	if err != nil {
		return 0
	}
	return pid
}

// unlock releases the session file, removes the lock file while still
// holding the lock, then releases it.
func (l *fileLock) unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	if l.data != nil {
		l.data.Close()
		l.data = nil
	}
	rmErr := os.Remove(l.path)
	err := l.f.Close()
	l.f = nil
	if rmErr != nil && !errors.Is(rmErr, os.ErrNotExist) {
		return fmt.Errorf("remove lock %s: %w", l.path, rmErr)
	}
	return err
}
