//go:build unix

package tools

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Through the sandbox's helper, a timeout and an abort still kill the
// command's whole process group (bash and a custom tool), and the call
// says which.
func TestSandboxedKillsProcessGroup(t *testing.T) {
	for _, tool := range []string{"bash", "command"} {
		for _, how := range []string{"timeout", "abort"} {
			t.Run(tool+"/"+how, func(t *testing.T) {
				env := testEnv(t)
				sandboxEnv(t, env, nil)
				pidFile := filepath.Join(env.Cwd, "pid")
				script := "sleep 300 & echo $! > pid.tmp && mv pid.tmp pid; wait"
				args := map[string]any{"command": script}
				var ttool Tool = NewBash(Options{})
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				want := "Command aborted"
				if how == "timeout" {
					want = "Command timed out after 1 seconds"
					args["timeout"] = 1
				} else {
					go func() { // abort once the background process runs
						defer cancel()
						_, _ = waitPID(pidFile, 20*time.Second)
					}()
				}
				if tool == "command" {
					spec := CommandSpec{Command: script, Timeout: time.Hour}
					if how == "timeout" {
						spec.Timeout = time.Second
					}
					ttool, args = commandTool(t, spec), map[string]any{}
				}
				res := runToolCtx(t, ctx, env, ttool, args, nil)
				if !res.IsError || !strings.HasSuffix(text(res), want) {
					t.Fatalf("got %q, want it to end %q", text(res), want)
				}
				pid, err := waitPID(pidFile, time.Second)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) }) // when the test fails
				if !waitDead(pid, 10*time.Second) {
					t.Fatalf("the background process %d outlived the call", pid)
				}
			})
		}
	}
}

// Through the sandbox's helper, a process a call leaves in the background
// outlives the call, confined, and its group is kept for Groups.Kill; the
// exit code and a signal come back as without the sandbox.
func TestSandboxedBackgroundAndExit(t *testing.T) {
	env := testEnv(t)
	sandboxEnv(t, env, nil)
	env.Groups = &Groups{}
	bash := NewBash(Options{})
	outside := t.TempDir()
	res := runTool(t, env, bash, map[string]any{"command": "(while [ ! -e go ]; do sleep 0.01; done; touch " + outside + "/late 2>err; echo $? > done) >/dev/null 2>&1 & echo $!"})
	pid, err := strconv.Atoi(strings.TrimSpace(text(res)))
	if err != nil || res.IsError {
		t.Fatalf("result %q", text(res))
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	if env.Groups.Len() != 1 {
		t.Fatalf("%d groups kept, want 1", env.Groups.Len())
	}
	res = runTool(t, env, bash, map[string]any{"command": "touch go; while [ ! -s done ]; do sleep 0.01; done; cat done err; exit 7"})
	if !res.IsError || !(strings.Contains(text(res), "Permission denied") || strings.Contains(text(res), "Read-only file system")) || !strings.Contains(text(res), "Command exited with code 7") {
		t.Fatalf("second call %q", text(res))
	}
	if _, err := os.Stat(filepath.Join(outside, "late")); err == nil {
		t.Fatal("the background process wrote outside the workspace")
	}
	res = runTool(t, env, bash, map[string]any{"command": "kill -TERM $$"})
	if !res.IsError || !strings.Contains(text(res), "killed by signal terminated") {
		t.Fatalf("signal %q", text(res))
	}
	if left := env.Groups.Kill(10 * time.Second); left != 0 {
		t.Fatalf("%d groups left after Kill", left)
	}
}

// Through the sandbox's helper, a custom tool's arguments reach its stdin
// (also over a pipe's buffer), its stderr stays apart, and a background
// child that leaves stdin unread does not hold the call.
func TestSandboxedCommandStdin(t *testing.T) {
	env := testEnv(t)
	sandboxEnv(t, env, nil)
	big := strings.Repeat("x", 300<<10)
	res := runTool(t, env, commandTool(t, CommandSpec{Command: `wc -c; echo oops >&2; exit 1`}), map[string]any{"text": big})
	if out := text(res); !res.IsError || !strings.HasPrefix(out, "307211\n") || !strings.Contains(out, "stderr:\noops\n") {
		t.Fatalf("result %q", clip(out))
	}
	res = runTool(t, env, commandTool(t, CommandSpec{Command: `sleep 300 <&0 >/dev/null 2>&1 & echo $!`}), map[string]any{"text": big})
	pid, err := strconv.Atoi(strings.TrimSpace(text(res)))
	if err != nil || res.IsError {
		t.Fatalf("result %q", clip(text(res)))
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
}
