package session

import (
	"fmt"
	"os"
	"testing"
	"time"

	"gopi/internal/fdcheck"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if os.Getenv(crashChildEnv) != "" {
		os.Exit(crashChild())
	}
	goleak.VerifyTestMain(m, goleak.Cleanup(fdcheck.Main()))
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
