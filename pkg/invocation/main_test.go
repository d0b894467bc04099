package invocation

import (
	"testing"

	"go.uber.org/goleak"

	"gopi/internal/fdcheck"
)

// Every run and host lets go of what it started: its signal trap, the
// Assembly's goroutines and files.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m, goleak.Cleanup(fdcheck.Main())) }
