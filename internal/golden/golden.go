// Package golden compares a test's output with its golden file, or
// rewrites the file when the tests run with -update (read the diff
// before committing it).
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// Path is testdata/golden/<the test's name>.golden, a subtest's "/" as "_".
func Path(t testing.TB) string {
	return filepath.Join("testdata", "golden", strings.ReplaceAll(t.Name(), "/", "_")+".golden")
}

// Check compares got with the golden file at path and reports the
// difference (-want +got); under -update it writes got there instead,
// creating the folder.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
		return
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got); run go test -update if the change is intended:\n%s", path, diff)
	}
}
