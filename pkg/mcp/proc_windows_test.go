package mcp_test

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sys/windows"

	"gopi/internal/wintest"
	"gopi/pkg/mcp"
	"gopi/pkg/tools"
)

// running reports whether pid runs, and ended waits up to d for it to
// end (a pid that cannot be opened has ended).
func running(pid int) bool { return !ended(pid, 0) }

func ended(pid int, d time.Duration) bool {
	h, err := windows.OpenProcess(windows.SYNCHRONIZE, false, uint32(pid))
	if err != nil {
		return true
	}
	defer windows.CloseHandle(h)
	ev, _ := windows.WaitForSingleObject(h, uint32(d.Milliseconds()))
	return ev == windows.WAIT_OBJECT_0
}

// Stopping a stdio server ends the processes it started too: the server
// runs in a job object. "" exits when its stdin closes and leaves its
// child behind; "stubborn" stays until it is killed.
func TestWindowsCloseEndsServerTree(t *testing.T) {
	for _, mode := range []string{"", "stubborn"} {
		m := mcp.Start(context.Background(), []mcp.Server{stdioServer(t, "g", mode)}, mcp.Options{Environ: os.Environ()})
		reg, err := tools.NewRegistry(tools.Env{Cwd: wintest.TempDir(t)})
		if err != nil {
			m.Close()
			t.Fatal(err)
		}
		reg.AddSource(m)
		r := call(t, reg, "mcp__g__spawn", `{}`)
		pid, err := strconv.Atoi(resultText(r))
		if err != nil {
			m.Close()
			t.Fatalf("spawn: %+v", r)
		}
		if !running(pid) {
			m.Close()
			t.Fatalf("child %d not running", pid)
		}
		if left := m.Close(); len(left) != 0 {
			t.Errorf("mode %q: still running: %v", mode, left)
		}
		if !ended(pid, 10*time.Second) {
			if h, err := windows.OpenProcess(windows.PROCESS_TERMINATE, false, uint32(pid)); err == nil {
				_ = windows.TerminateProcess(h, 1)
				windows.CloseHandle(h)
			}
			t.Errorf("mode %q: the server's child %d outlived Close", mode, pid)
		}
	}
}
