package golden_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopi/internal/golden"
)

// recorder is a testing.TB that records what Check reports.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Helper()                   {}
func (r *recorder) Errorf(f string, a ...any) { r.errors = append(r.errors, f) }
func (r *recorder) Fatalf(f string, a ...any) { r.errors = append(r.errors, f) }

// Check passes on the same bytes and reports a difference otherwise.
func TestCheck(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "x.golden")
	if err := os.WriteFile(path, []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	same := &recorder{TB: t}
	golden.Check(same, path, []byte("one\ntwo\n"))
	differs := &recorder{TB: t}
	golden.Check(differs, path, []byte("one\nthree\n"))
	missing := &recorder{TB: t}
	golden.Check(missing, path+".absent", []byte("x"))
	if len(same.errors) != 0 || len(differs.errors) != 1 || len(missing.errors) != 1 {
		t.Fatalf("same %q, differs %q, missing %q", same.errors, differs.errors, missing.errors)
	}
}

// Path names the test's golden file; a subtest's "/" becomes "_".
func TestPath(t *testing.T) {
	t.Parallel()
	t.Run("sub", func(t *testing.T) {
		if got := golden.Path(t); got != filepath.Join("testdata", "golden", "TestPath_sub.golden") || strings.Contains(filepath.Base(got), "/") {
			t.Fatalf("path %q", got)
		}
	})
}
