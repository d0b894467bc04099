package session

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestMain(m *testing.M) {
	if os.Getenv(crashChildEnv) != "" {
		os.Exit(crashChild())
	}
	before, err := openFDs()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		leaked, err := fdsOpenedSince(before)
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
	}))
}

// testOptions returns deterministic options: a clock that ticks one second
// per call from 2026-03-01T10:00:00Z and sequential ids.
func testOptions() Options {
	t := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	n := 0
	return Options{
		Now:     func() time.Time { t = t.Add(time.Second); return t },
		NewID:   func() string { n++; return fmt.Sprintf("%08x", n) },
		NewUUID: func() string { return "0b6f2a5e-1111-4c3a-9d6e-2f0c8a7b9e10" },
	}
}
