package tools

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestBashKillsProcessGroup pins that a timeout and an abort kill the
// command's whole process group: a background process the shell waits
// for dies too, not only the shell.
func TestBashKillsProcessGroup(t *testing.T) {
	for _, how := range []string{"timeout", "abort"} {
		t.Run(how, func(t *testing.T) {
			env := testEnv(t)
			pidFile := filepath.Join(env.Cwd, "pid")
			args := map[string]any{"command": "sleep 300 & echo $! > pid.tmp && mv pid.tmp pid; wait"}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			want := "Command aborted"
			if how == "timeout" {
				args["timeout"] = 1
				want = "Command timed out after 1 seconds"
			} else {
				go func() { // abort once the background process runs
					defer cancel()
					_, _ = waitPID(pidFile, 20*time.Second)
				}()
			}
			res := runToolCtx(t, ctx, env, NewBash(Options{}), args, nil)
			if !res.IsError || !strings.HasSuffix(text(res), want) {
				t.Fatalf("got %q, want it to end %q", text(res), want)
			}
			pid, err := waitPID(pidFile, time.Second)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) }) // when the test fails
			if !waitDead(pid, 10*time.Second) {
				t.Fatalf("the background process %d outlived the bash call", pid)
			}
		})
	}
}

// waitPID polls for the pid file the command writes.
func waitPID(path string, limit time.Duration) (int, error) {
	deadline := time.Now().Add(limit)
	for {
		data, err := os.ReadFile(path)
		if err == nil {
			return strconv.Atoi(strings.TrimSpace(string(data)))
		}
		if time.Now().After(deadline) {
			return 0, err
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitDead polls until pid is gone. A zombie counts as dead: killed, it
// waits only for its new parent to reap it.
func waitDead(pid int, limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return true
		}
		if stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
			if i := strings.LastIndexByte(string(stat), ')'); i >= 0 && strings.HasPrefix(string(stat[i+1:]), " Z") {
				return true
			}
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}
