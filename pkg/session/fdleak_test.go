package session

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
)

// goleak watches goroutines only; a store that forgets to close its
// session file, its lock file or a folder leaks a file descriptor (and,
// for a flocked file, keeps the lock until the garbage collector happens
// to close it). These helpers compare /proc/self/fd before and after.

// openFDs maps each open file descriptor of the process to what it names.
func openFDs() (map[string]string, error) {
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

// fdsOpenedSince lists the descriptors open now that were not open, or
// named something else, in before. The Go runtime's poller opens its
// descriptors once, on first use, and keeps them; they are not leaks.
func fdsOpenedSince(before map[string]string) ([]string, error) {
	now, err := openFDs()
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

// checkFDs fails t if a file descriptor opened during the test is still
// open when the test and its other cleanups are done. Call it first, so
// that its cleanup runs last. The garbage collector is off meanwhile: an
// *os.File nothing refers to any more is closed by its finalizer after a
// collection, which would hide the leak from the check (but not from a
// user whose lock stays held until then).
func checkFDs(t *testing.T) {
	t.Helper()
	before, err := openFDs()
	if err != nil {
		t.Fatal(err)
	}
	gc := debug.SetGCPercent(-1)
	t.Cleanup(func() {
		defer debug.SetGCPercent(gc)
		leaked, err := fdsOpenedSince(before)
		if err != nil {
			t.Fatal(err)
		}
		if len(leaked) > 0 {
			t.Errorf("file descriptors left open: %s", strings.Join(leaked, ", "))
		}
	})
}

// The checker sees a descriptor left open, and no longer once it is closed.
func TestCheckFDsSeesALeak(t *testing.T) {
	before, err := openFDs()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "leak")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	leaked, err := fdsOpenedSince(before)
	if err != nil || len(leaked) != 1 || !strings.HasSuffix(leaked[0], " → "+path) {
		t.Errorf("with %s open: leaked %v, %v", path, leaked, err)
	}
	f.Close()
	if leaked, err := fdsOpenedSince(before); err != nil || len(leaked) != 0 {
		t.Errorf("after close: leaked %v, %v", leaked, err)
	}
}
