//go:build unix

package tools

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A command that hangs is stopped at its timeout with its whole process
// group, and an abort stops it the same way.
func TestCommandToolTimeoutAndAbort(t *testing.T) {
	for _, how := range []string{"timeout", "abort"} {
		t.Run(how, func(t *testing.T) {
			env := testEnv(t)
			spec := CommandSpec{Command: `sleep 300 & echo $! > pid.tmp && mv pid.tmp pid; wait`, Timeout: time.Hour}
			want := "Command aborted"
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			pidFile := filepath.Join(env.Cwd, "pid")
			if how == "timeout" {
				spec.Timeout = 5 * time.Second // the shell writes the pid first, even on a loaded machine
				want = "Command timed out after 5 seconds"
			} else {
				go func() {
					defer cancel()
					_, _ = waitPID(pidFile, 20*time.Second)
				}()
			}
			res := runToolCtx(t, ctx, env, commandTool(t, spec), map[string]any{}, nil)
			if !res.IsError || !strings.HasSuffix(text(res), want) {
				t.Fatalf("got %q, want it to end %q", text(res), want)
			}
			pid, err := waitPID(pidFile, time.Second)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
			if !waitDead(pid, 10*time.Second) {
				t.Fatalf("the background process %d outlived the call", pid)
			}
		})
	}
}
