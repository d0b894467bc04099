// Package fdcheck finds file descriptors a test left open. goleak watches
// goroutines only; code that forgets to close a session file, a lock file,
// a pipe or a folder leaks a descriptor (and, for a flocked file, keeps
// the lock until the garbage collector happens to close it). These
// helpers compare /proc/self/fd before and after.
package fdcheck

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"
)

// Snapshot maps each open file descriptor of the process to what it names.
func Snapshot() (map[string]string, error) {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return nil, fmt.Errorf("list open file descriptors: %w", err)
	}
	out := make(map[string]string, len(ents))
	for _, e := range ents {
		target, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name()))
		if err != nil {
			continue // the descriptor ReadDir listed the folder with, closed since
		}
		out[e.Name()] = target
	}
	return out, nil
}

// OpenedSince lists the descriptors open now that were not open, or named
// something else, in before. The Go runtime's poller opens its descriptors
// once, on first use, and keeps them; they are not leaks.
func OpenedSince(before map[string]string) ([]string, error) {
	now, err := Snapshot()
	if err != nil {
		return nil, err
	}
	var leaked []string
	for fd, target := range now {
		if before[fd] == target || target == "anon_inode:[eventpoll]" || target == "anon_inode:[eventfd]" {
			continue
		}
		leaked = append(leaked, fd+" → "+target)
	}
	slices.Sort(leaked)
	return leaked, nil
}

// settleFor is how long a check waits for descriptors to close. Some are
// closed by a goroutine after the call that ended their use has returned:
// net/http's transport closes a connection it may not keep idle in its
// read loop, a moment after the response body was closed. A real leak
// stays open however long one waits; the check only fails then.
const settleFor = 3 * time.Second

// openedAfterSettling is OpenedSince, polled until nothing is left open
// or settleFor has passed.
func openedAfterSettling(before map[string]string) ([]string, error) {
	deadline := time.Now().Add(settleFor)
	pause := time.Millisecond
	for {
		leaked, err := OpenedSince(before)
		if err != nil || len(leaked) == 0 || time.Now().After(deadline) {
			return leaked, err
		}
		time.Sleep(pause)
		pause = min(2*pause, 100*time.Millisecond)
	}
}

// Check fails t if a file descriptor opened during the test is still open
// when the test and its other cleanups are done. Call it first, so that
// its cleanup runs last. The garbage collector is off meanwhile: an
// *os.File nothing refers to any more is closed by its finalizer after a
// collection, which would hide the leak from the check (but not from a
// user whose lock stays held until then). Not for parallel tests: the
// descriptors of the whole process are compared.
func Check(t testing.TB) {
	t.Helper()
	before, err := Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	gc := debug.SetGCPercent(-1)
	t.Cleanup(func() {
		defer debug.SetGCPercent(gc)
		leaked, err := openedAfterSettling(before)
		if err != nil {
			t.Fatal(err)
		}
		if len(leaked) > 0 {
			t.Errorf("file descriptors left open: %s", strings.Join(leaked, ", "))
		}
	})
}

// Main is for TestMain, beside goleak: it takes a snapshot, and returns a
// function that turns a passing exit code into a failing one when the
// tests left descriptors open. Use it as goleak.Cleanup(fdcheck.Main()).
func Main() func(code int) {
	before, err := Snapshot()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	return func(code int) {
		leaked, err := openedAfterSettling(before)
		switch {
		case code != 0:
		case err != nil:
			fmt.Fprintln(os.Stderr, err)
			code = 1
		case len(leaked) > 0:
			fmt.Fprintf(os.Stderr, "FAIL: file descriptors left open by the tests: %s\n", strings.Join(leaked, ", "))
			code = 1
		}
		os.Exit(code)
	}
}
