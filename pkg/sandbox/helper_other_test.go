//go:build !linux

package sandbox_test

import (
	"bytes"
	"errors"
	"testing"

	"gopi/pkg/sandbox"
)

// TestUnsupported: where there is no Landlock the probe says so and the
// helper refuses to run anything.
func TestUnsupported(t *testing.T) {
	if _, err := sandbox.KernelProbe(); !errors.Is(err, sandbox.ErrUnsupported) {
		t.Fatalf("probe: %v", err)
	}
	var stderr bytes.Buffer
	if code := sandbox.RunHelper([]string{"{}"}, nil, &stderr); code != 126 || !bytes.Contains(stderr.Bytes(), []byte("did not run")) {
		t.Fatalf("helper: %d %s", code, stderr.String())
	}
}

// parentMain has no helper to start here.
func parentMain(string) int { return 1 }
