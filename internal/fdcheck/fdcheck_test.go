package fdcheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The checker sees a descriptor left open, and no longer once it is closed.
func TestOpenedSinceSeesALeak(t *testing.T) {
	before, err := Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "leak")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	leaked, err := OpenedSince(before)
	if err != nil || len(leaked) != 1 || !strings.HasSuffix(leaked[0], " → "+path) {
		t.Errorf("with %s open: leaked %v, %v", path, leaked, err)
	}
	f.Close()
	if leaked, err := OpenedSince(before); err != nil || len(leaked) != 0 {
		t.Errorf("after close: leaked %v, %v", leaked, err)
	}
}

// Check reports a leak through the test it watches.
func TestCheckFailsTheTest(t *testing.T) {
	rec := &recorder{TB: t}
	var f *os.File
	func() {
		defer rec.runCleanups()
		Check(rec)
		var err error
		f, err = os.Create(filepath.Join(t.TempDir(), "leak"))
		if err != nil {
			t.Fatal(err)
		}
	}()
	defer f.Close()
	if !strings.Contains(rec.errors, "file descriptors left open") {
		t.Errorf("Check did not report the open file: %q", rec.errors)
	}
}

type recorder struct {
	testing.TB
	cleanups []func()
	errors   string
}

func (r *recorder) Cleanup(f func())          { r.cleanups = append(r.cleanups, f) }
func (r *recorder) Errorf(f string, a ...any) { r.errors += f }
func (r *recorder) Helper()                   {}
func (r *recorder) runCleanups() {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
}
