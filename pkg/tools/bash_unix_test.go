//go:build unix

package tools

import (
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestBashGrandchildHoldsPipe pins the bounded wait: a background process
// that inherited stdout must not keep the call open. It is still running
// when the call returns (a call that waited for it would outlast the test
// binary's timeout).
func TestBashGrandchildHoldsPipe(t *testing.T) {
	env := testEnv(t)
	res := runTool(t, env, NewBash(Options{}), map[string]any{"command": "sleep 300 & echo $!"})
	pid, err := strconv.Atoi(strings.TrimSpace(text(res)))
	if err != nil || res.IsError {
		t.Fatalf("result %q", text(res))
	}
	defer syscall.Kill(pid, syscall.SIGKILL)
	if waitDead(pid, 0) {
		t.Fatalf("the background process %d ended before the call returned", pid)
	}
}
