package tools

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"gopi/pkg/ai"
)

// tiedParentMain is the process TestCommandDiesWithGopi kills: it runs one
// unsandboxed bash call that writes its shell's pid into dir and runs on.
func tiedParentMain(dir string) int {
	env := &Env{Cwd: dir, Environ: []string{"PATH=/usr/bin:/bin"}, TempDir: dir}
	reg, err := NewRegistry(*env, NewBash(Options{}))
	if err != nil {
		return 1
	}
	reg.Execute(context.Background(), ai.ToolCallContent("c", "bash", json.RawMessage(`{"command":"echo $$ > pid.tmp && mv pid.tmp pid; while :; do sleep 0.05; done; touch late"}`)), nil)
	return 0
}

// TestCommandDiesWithGopi: an unsandboxed command ends when the gopi that
// started it is killed outright (SIGKILL, no chance to clean up): it does
// not run on to its next step.
func TestCommandDiesWithGopi(t *testing.T) {
	dir := t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), "TOOLS_TEST_PARENT="+dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	var pid int
	for { // the test's deadline bounds the wait
		if b, err := os.ReadFile(filepath.Join(dir, "pid")); err == nil {
			if pid, err = strconv.Atoi(strings.TrimSpace(string(b))); err != nil {
				t.Fatal(err)
			}
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	pidfd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(pidfd)
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	fds := []unix.PollFd{{Fd: int32(pidfd), Events: unix.POLLIN}}
	for { // readable once the shell has ended; -1: the test's deadline bounds it
		n, err := unix.Poll(fds, -1)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || n != 1 {
			t.Fatalf("poll: %d %v", n, err)
		}
		break
	}
	if _, err := os.Stat(filepath.Join(dir, "late")); err == nil {
		t.Error("the command ran on after gopi was killed")
	}
}
