//go:build unix

package tools

import (
	"context"
	"errors"
	"os"
	"os/exec"
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
				// long enough for a loaded machine to start the shell and
				// write the pid before the timeout ends the group
				args["timeout"] = 5
				want = "Command timed out after 5 seconds"
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

// TestBashBackgroundGroupsKept pins Env.Groups: a process a call leaves
// running in the background outlives the call (a later call may use it),
// the group is kept, and Groups.Kill ends it; a call that leaves nothing
// behind keeps nothing.
func TestBashBackgroundGroupsKept(t *testing.T) {
	env := testEnv(t)
	env.Groups = &Groups{}
	bash := NewBash(Options{})
	res := runToolCtx(t, context.Background(), env, bash, map[string]any{"command": "echo quiet"}, nil)
	if res.IsError || env.Groups.Len() != 0 {
		t.Fatalf("a call with no background process: %q, %d groups kept", text(res), env.Groups.Len())
	}
	res = runToolCtx(t, context.Background(), env, bash, map[string]any{"command": "sleep 300 >/dev/null 2>&1 & echo $! > pid"}, nil)
	if res.IsError {
		t.Fatalf("background call failed: %q", text(res))
	}
	pid, err := waitPID(filepath.Join(env.Cwd, "pid"), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) }) // when the test fails
	if waitDead(pid, 0) {
		t.Fatalf("the background process %d ended with the call", pid)
	}
	if n := env.Groups.Len(); n != 1 {
		t.Fatalf("%d groups kept, want 1", n)
	}
	if left := env.Groups.Kill(10 * time.Second); left != 0 {
		t.Fatalf("%d groups left after Kill", left)
	}
	if !waitDead(pid, 0) {
		t.Fatalf("the background process %d outlived Kill", pid)
	}
	if env.Groups.Len() != 0 || env.Groups.Kill(time.Second) != 0 {
		t.Fatal("Kill did not forget the groups it killed")
	}
}

// TestGroupsNil pins that a nil *Groups keeps nothing and kills nothing.
func TestGroupsNil(t *testing.T) {
	var g *Groups
	g.keep(os.Getpid())
	if g.Len() != 0 || g.Kill(time.Second) != 0 {
		t.Fatal("a nil Groups kept a group")
	}
}

// TestParseStat pins the reading of /proc/PID/stat, whose command name
// may hold spaces and parentheses.
func TestParseStat(t *testing.T) {
	tests := []struct {
		line  string
		state byte
		pgrp  int
		ok    bool
	}{
		{"123 (sleep) S 1 120 120 0", 'S', 120, true},
		{"123 (a) b (c)) Z 1 77 77", 'Z', 77, true},
		{"123 (x) R 1 5", 'R', 5, true},
		{"123 (x) R 1", 0, 0, false},
		{"123 (x) RS 1 5", 0, 0, false},
		{"123 (x) S 1 five", 'S', 0, false},
		{"123 no parenthesis S 1 5", 0, 0, false},
	}
	for _, tc := range tests {
		state, pgrp, ok := parseStat([]byte(tc.line))
		if ok != tc.ok || state != tc.state || pgrp != tc.pgrp { // zero values when not ok
			t.Errorf("parseStat(%q) = %q %d %v, want %q %d %v", tc.line, state, pgrp, ok, tc.state, tc.pgrp, tc.ok)
		}
	}
	// The test's own process: running, in its own process group.
	stat, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		t.Fatal(err)
	}
	if _, pgrp, ok := parseStat(stat); !ok || pgrp != syscall.Getpgrp() {
		t.Errorf("own stat %q: group %d, want %d", stat, pgrp, syscall.Getpgrp())
	}
}

// TestBashSlowReaderKeepsOutput pins that output already in the pipe when
// the shell exits is all read, however long the reader is held up: the
// drain wait stops a pipe that stays empty, not a slow reader. The first
// update holds the reader until the command has written the rest and
// ended, and then past the drain wait.
func TestBashSlowReaderKeepsOutput(t *testing.T) {
	env := testEnv(t)
	cmd := "echo first; while [ ! -e go ]; do sleep 0.01; done; seq -f %020g 2 1900; touch done"
	held := false
	res := runToolCtx(t, context.Background(), env, NewBash(Options{}), map[string]any{"command": cmd}, func(Result) {
		if held {
			return
		}
		held = true
		os.WriteFile(filepath.Join(env.Cwd, "go"), nil, 0o644)
		waitPID(filepath.Join(env.Cwd, "done"), 20*time.Second) // an empty file: only its existence counts
		time.Sleep(4 * drainWait)                               // no event marks the drain wait's end
	})
	want, _ := exec.Command("seq", "-f", "%020g", "2", "1900").Output()
	if res.IsError || text(res) != "first\n"+string(want) {
		got := text(res)
		t.Fatalf("got %d bytes ending %q, want %d", len(got), got[max(len(got)-40, 0):], len("first\n")+len(want))
	}
}
