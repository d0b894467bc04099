//go:build unix

package mcp_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"gopi/internal/fdcheck"
	"gopi/pkg/mcp"
)

// alive reports whether pid runs (a zombie does not).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z"
}

func TestCloseEndsProcessGroups(t *testing.T) {
	fdcheck.Check(t)
	for _, mode := range []string{"", "stubborn"} {
		m := mcp.Start(context.Background(), []mcp.Server{stdioServer(t, "g", mode)}, mcp.Options{Environ: []string{"PATH=" + os.Getenv("PATH")}})
		reg := registry(t, m)
		r := call(t, reg, "mcp__g__spawn", `{}`)
		pid, err := strconv.Atoi(resultText(r))
		if err != nil {
			m.Close()
			t.Fatalf("spawn: %+v", r)
		}
		if !alive(pid) {
			t.Fatalf("child %d not running", pid)
		}
		if left := m.Close(); len(left) != 0 {
			t.Errorf("mode %q: still running: %v", mode, left)
		}
		deadline := time.Now().Add(5 * time.Second)
		for alive(pid) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond) // its parent reaps it, not us
		}
		if alive(pid) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("mode %q: the server's child %d outlived Close", mode, pid)
		}
	}
}
