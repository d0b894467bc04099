package mcp_test

import (
	"bufio"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A gopi killed outright (SIGKILL) takes its stdio servers along, even
// one busy in a call that ignores SIGTERM and stdin's end: they once
// kept running with nobody to stop them.
func TestServersDieWithGopi(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	host := exec.Command(exe)
	host.Env = append(os.Environ(), "GOPI_MCP_TEST_SERVER=host")
	out, err := host.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	host.Stderr = os.Stderr
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	pid, perr := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || perr != nil {
		_ = host.Process.Kill()
		_ = host.Wait()
		t.Fatalf("the host printed %q (%v)", line, err)
	}
	if !alive(pid) {
		t.Fatalf("server %d not running", pid)
	}
	_ = host.Process.Signal(syscall.SIGKILL)
	_ = host.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for alive(pid) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond) // init reaps it
	}
	if alive(pid) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("server %d outlived its gopi", pid)
	}
}
