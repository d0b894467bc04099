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

// running reports whether pid runs.
func running(pid int) bool { return !wintest.Ended(pid, 0) }

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
		if !wintest.Ended(pid, 10*time.Second) {
			if h, err := windows.OpenProcess(windows.PROCESS_TERMINATE, false, uint32(pid)); err == nil {
				_ = windows.TerminateProcess(h, 1)
				windows.CloseHandle(h)
			}
			t.Errorf("mode %q: the server's child %d outlived Close", mode, pid)
		}
	}
}
