package assemble_test

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"gopi/internal/fdcheck"
	"gopi/pkg/assemble"
)

// running says whether pid is a process that is more than a zombie.
func running(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	f := strings.Fields(string(b[i+1:]))
	return len(f) > 0 && f[0] != "Z"
}

// leaveSleeper builds an Assembly whose first prompt has bash leave a
// process running in the background; it returns the Assembly and the
// process's id.
func leaveSleeper(t *testing.T, stderr *bytes.Buffer) (*assemble.Assembly, int) {
	t.Helper()
	s := settings(t)
	s.Model.ID = bashThen(t, "sleep 300 >/dev/null 2>&1 & echo $!")
	a, err := assemble.Build(s, env(stderr))
	if err != nil {
		t.Fatal(err)
	}
	prompt(t, a, "start it")
	texts := toolTexts(a)
	if len(texts) != 1 {
		a.Close()
		t.Fatalf("tool results %q", texts)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(texts[0]))
	if err != nil || !running(pid) {
		a.Close()
		t.Fatalf("no background process: %q %v", texts[0], err)
	}
	dispose(t, a)
	return a, pid
}

// Close ends the process groups bash calls left running, and says
// nothing when they all ended.
func TestCloseEndsWhatBashLeftRunning(t *testing.T) {
	fdcheck.Check(t)
	var stderr bytes.Buffer
	a, pid := leaveSleeper(t, &stderr)
	a.Close()
	if running(pid) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("process %d still runs after Close", pid)
	}
	if strings.Contains(stderr.String(), "did not end") {
		t.Fatalf("stderr: %s", stderr.String())
	}
}

// Kill ends the processes at once, before Close; Close after it is
// still the way to release the rest.
func TestKillEndsProcessesBeforeClose(t *testing.T) {
	fdcheck.Check(t)
	var stderr bytes.Buffer
	a, pid := leaveSleeper(t, &stderr)
	file := a.File()
	a.Kill()
	for i := 0; i < 400 && running(pid); i++ { // bounded: SIGKILL takes effect at once
		time.Sleep(5 * time.Millisecond)
	}
	if running(pid) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		a.Close()
		t.Fatalf("process %d still runs after Kill", pid)
	}
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("Kill touched the session: %v", err)
	}
	a.Close()
}
