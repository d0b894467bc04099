//go:build linux

package session

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"gopi/internal/fdcheck"

	"golang.org/x/sys/unix"
)

// The lock file a process opened may be removed by its holder's Close
// (and another made by a third process) before the flock succeeds: a lock
// on a file no longer at the path locks nothing, so the store opens the
// path again and locks what is there now.
func TestLockRetriesWhenTheLockFileChanges(t *testing.T) {
	for _, change := range []string{"removed", "replaced"} {
		t.Run(change, func(t *testing.T) {
			fdcheck.Check(t)
			path := filepath.Join(t.TempDir(), "s.jsonl")
			writeGoldenSession(t, path)
			opens := 0
			opts := Options{PID: 4242}
			opts.ops.openLock = func(name string, flag int, perm os.FileMode) (*os.File, error) {
				opens++
				f, err := os.OpenFile(name, flag, perm)
				if opens == 1 {
					// the holder's Close, between this open and the flock
					mustDo(t, os.Remove(name))
					if change == "replaced" {
						mustDo(t, os.WriteFile(name, nil, 0o600))
					}
				}
				return f, err
			}
			s, err := Open(path, opts)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if opens != 2 {
				t.Errorf("the lock file was opened %d times, want 2", opens)
			}
			if got := string(mustRead(t, LockPath(path))); got != "4242\n" {
				t.Errorf("lock file holds %q, want the holder's pid", got)
			}
			mustBeLockedBy(t, path, 4242)
		})
	}
}

// A lock file that changes at every try is given up on after ten tries,
// with a message.
func TestLockGivesUpWhenTheLockFileKeepsChanging(t *testing.T) {
	fdcheck.Check(t)
	path := filepath.Join(t.TempDir(), "s.jsonl")
	writeGoldenSession(t, path)
	opens := 0
	opts := testOptions()
	opts.ops.openLock = func(name string, flag int, perm os.FileMode) (*os.File, error) {
		opens++
		if opens > 100 {
			t.Fatal("the store does not give up")
		}
		f, err := os.OpenFile(name, flag, perm)
		mustDo(t, os.Remove(name))
		return f, err
	}
	s, err := Open(path, opts)
	if err == nil {
		s.Close()
	}
	if err == nil || !strings.Contains(err.Error(), "lock session "+path+": lock file keeps changing") {
		t.Fatalf("Open: %v, want it to give up", err)
	}
	if opens != 10 {
		t.Errorf("gave up after %d tries, want 10", opens)
	}
}

// A lock file that cannot be opened, flocked or written is an error
// naming the session and the cause, at the first try, and not a claim
// that another process holds the lock.
func TestLockFileErrors(t *testing.T) {
	tests := []struct {
		name string
		// openLock opens the lock file; nil: the real one
		openLock func(name string, flag int, perm os.FileMode) (*os.File, error)
		prepare  func(t *testing.T, lock string)
		says     string
	}{
		{"the lock file is a folder", nil, func(t *testing.T, lock string) { mustDo(t, os.Mkdir(lock, 0o700)) },
			"is a directory"},
		{"a file system without flock", func(name string, flag int, perm os.FileMode) (*os.File, error) {
			// a descriptor flock refuses (EBADF), as a file system
			// without flock refuses every one (ENOLCK)
			f, err := os.OpenFile(name, flag, perm)
			if err != nil {
				return nil, err
			}
			f.Close()
			return os.OpenFile(name, unix.O_PATH|unix.O_CLOEXEC, 0)
		}, nil, "bad file descriptor"},
		{"the pid cannot be written (truncate)", func(name string, flag int, perm os.FileMode) (*os.File, error) {
			return os.OpenFile(name, flag&^os.O_RDWR|os.O_RDONLY, perm)
		}, nil, "write pid: truncate"},
		{"the pid cannot be written (write)", func(name string, flag int, perm os.FileMode) (*os.File, error) {
			return os.OpenFile(name, flag|os.O_APPEND, perm)
		}, nil, "write pid: os: invalid use of WriteAt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fdcheck.Check(t)
			path := filepath.Join(t.TempDir(), "s.jsonl")
			writeGoldenSession(t, path)
			if tt.prepare != nil {
				tt.prepare(t, LockPath(path))
			}
			opens := 0
			opts := testOptions()
			opts.ops.sleep = func(time.Duration) {}
			opts.ops.openLock = func(name string, flag int, perm os.FileMode) (*os.File, error) {
				opens++
				if tt.openLock != nil {
					return tt.openLock(name, flag, perm)
				}
				return os.OpenFile(name, flag, perm)
			}
			s, err := Open(path, opts)
			if err == nil {
				s.Close()
				t.Fatal("Open succeeded")
			}
			if !strings.Contains(err.Error(), "lock session "+path+": ") || !strings.Contains(err.Error(), tt.says) || errors.Is(err, ErrLocked) {
				t.Errorf("Open: %v, want an error naming the session and saying %q", err, tt.says)
			}
			if opens != 1 {
				t.Errorf("the lock file was opened %d times, want once", opens)
			}
		})
	}
}

// The lock file, while held, is the holder's alone and names it.
func TestLockFileWhileHeld(t *testing.T) {
	fdcheck.Check(t)
	path := filepath.Join(t.TempDir(), "s.jsonl")
	writeGoldenSession(t, path)
	s, err := Open(path, Options{PID: 31337})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	st, err := os.Stat(LockPath(path))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("lock file: %v, %v; want mode 0600", st, err)
	}
	if got := string(mustRead(t, LockPath(path))); got != "31337\n" {
		t.Errorf("lock file holds %q", got)
	}
}

// A holder that has the lock but has not written its pid yet is given a
// moment (20 ms, in 1 ms steps) to write it, so the refusal names it.
func TestLockWaitsForTheHolderToWriteItsPID(t *testing.T) {
	tests := []struct {
		name    string
		content string // the lock file when the second store tries
		writeAt int    // the sleep during which the holder writes 777; 0: never
		wantPID int
		sleeps  int
	}{
		{"pid already there", "4242\n", 0, 4242, 0},
		{"pid written while waiting", "", 3, 777, 3},
		{"pid written at the last moment", "", 20, 777, 20},
		{"never written", "", 0, 0, 20},
		{"not a pid", "garbage\n", 0, 0, 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fdcheck.Check(t)
			path := filepath.Join(t.TempDir(), "s.jsonl")
			writeGoldenSession(t, path)
			// the holder: another open file description, flocked
			holder, err := os.OpenFile(LockPath(path), os.O_RDWR|os.O_CREATE, 0o600)
			mustDo(t, err)
			defer holder.Close()
			mustDo(t, unix.Flock(int(holder.Fd()), unix.LOCK_EX|unix.LOCK_NB))
			_, err = holder.WriteString(tt.content)
			mustDo(t, err)

			var waited time.Duration
			sleeps := 0
			opts := testOptions()
			opts.ops.sleep = func(d time.Duration) {
				sleeps++
				waited += d
				if sleeps > 1000 {
					t.Fatal("the store waits forever")
				}
				if sleeps == tt.writeAt {
					_, err := holder.WriteAt([]byte(strconv.Itoa(777)+"\n"), 0)
					mustDo(t, err)
				}
			}
			s, err := Open(path, opts)
			if err == nil {
				s.Close()
				t.Fatal("Open succeeded")
			}
			var le *LockedError
			if !errors.As(err, &le) || le.PID != tt.wantPID {
				t.Errorf("Open: %v, want a LockedError naming pid %d", err, tt.wantPID)
			}
			if sleeps != tt.sleeps || waited != time.Duration(tt.sleeps)*time.Millisecond {
				t.Errorf("waited %d times, %v in all; want %d times 1ms", sleeps, waited, tt.sleeps)
			}
		})
	}
}
