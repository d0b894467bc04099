package extension

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/windows"

	"gopi/internal/wintest"
)

// testTreeEnv makes this test binary act as a hook's shell that starts a
// child (this binary again, sleeping), writes the child's pid to the
// file the variable names, and then hangs (-c hang) or exits 0 (-c leave).
const (
	testTreeEnv  = "GOPI_TEST_HOOK_TREE"
	testSleepEnv = "GOPI_TEST_HOOK_SLEEP"
)

func init() {
	if os.Getenv(testSleepEnv) != "" {
		time.Sleep(time.Hour)
		os.Exit(0)
	}
	pidFile := os.Getenv(testTreeEnv)
	if pidFile == "" {
		return
	}
	child := exec.Command(os.Args[0])
	child.Env = append(os.Environ(), testSleepEnv+"=1")
	if err := child.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "start child:", err)
		os.Exit(3)
	}
	if err := os.WriteFile(pidFile, []byte(strconv.Itoa(child.Process.Pid)), 0o644); err != nil {
		os.Exit(4)
	}
	if len(os.Args) == 3 && os.Args[2] == "hang" {
		time.Sleep(time.Hour)
	}
	os.Exit(0)
}

// treeHook runs a before hook whose shell is this binary (see
// testTreeEnv) with command and timeout, and returns the result and the
// pid of the child the hook started.
func treeHook(t *testing.T, command string, timeout float64) (string, bool, int) {
	t.Helper()
	dir := wintest.TempDir(t)
	pidFile := filepath.Join(dir, "pid")
	env := testEnv(dir)
	env.Shell = os.Args[0]
	env.Environ = append(os.Environ(), testTreeEnv+"="+pidFile)
	h := NewHost(Options{})
	if err := h.AddCommandHooks(HooksConfig{BeforeTool: []CommandHook{{Matcher: "bash", Command: command, Timeout: timeout}}}, env); err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	res := callTool(h, rec, "bash", `{"command":"dir"}`)
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the hook started no child (%v): %q", err, resultText(res))
	}
	pid, err := strconv.Atoi(string(b))
	if err != nil {
		t.Fatal(err)
	}
	return resultText(res), len(rec.ran()) == 1, pid
}

// endProcess ends what a failed test left running.
func endProcess(pid int) {
	if h, err := windows.OpenProcess(windows.PROCESS_TERMINATE, false, uint32(pid)); err == nil {
		_ = windows.TerminateProcess(h, 1)
		windows.CloseHandle(h)
	}
}

// A hook's timeout ends the hook and every process it started (its job
// object), not the hook alone.
func TestWindowsHookTimeoutEndsItsTree(t *testing.T) {
	text, ran, pid := treeHook(t, "hang", 2)
	if ran || !strings.Contains(text, "did not finish within") {
		t.Errorf("the call ran (%v) or the hook did not time out: %q", ran, text)
	}
	if !wintest.Ended(pid, 10*time.Second) {
		endProcess(pid)
		t.Fatalf("the hook's child %d outlived the timeout", pid)
	}
}

// What a hook leaves running when it exits runs on, as on Unix: its job
// is let go without ending it.
func TestWindowsHookLeavesWhatItStartedRunning(t *testing.T) {
	text, ran, pid := treeHook(t, "leave", 0)
	defer endProcess(pid)
	if !ran {
		t.Fatalf("the hook did not let the call run: %q", text)
	}
	if wintest.Ended(pid, 0) {
		t.Fatalf("the hook's child %d ended with the hook", pid)
	}
}
