package cmd

import (
	"os"
	"testing"

	"gopi/pkg/sandbox"
)

// TestMain makes the test binary also the sandbox helper: a bash call of
// an in-process run (Main under test) starts the running executable with
// sandbox.HelperArg, as it starts gopi, and Main serves it.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperArg {
		os.Exit(Main(os.Args[1:], OSSystem()))
	}
	os.Exit(m.Run())
}
