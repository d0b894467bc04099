//go:build unix

package invocation

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"gopi/pkg/ai"
	"gopi/pkg/exitcode"
	"gopi/pkg/mode"
)

// A stdout whose reader went away before the result line was written is
// said on stderr, and the run exits as interrupted.
func TestRunSaysAStdoutNobodyReads(t *testing.T) {
	p, _, _, errOut := proc(t, fauxSettings(t, `{"responses":[{"text":"done"}]}`))
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	r.Close()
	p.Stdout = w
	err = run(p, RunOptions{Mode: mode.JSON}, "hi")
	if codeOf(t, err) != exitcode.Interrupted || !strings.Contains(errOut.String(), "gopi: stdout was closed by its reader: its end was not written") {
		t.Fatalf("code %d stderr %q", codeOf(t, err), errOut)
	}
}

// While a host is open a forced exit kills what its bash calls left
// running.
func TestForcedExitKillsWhatTheOpenHostLeftRunning(t *testing.T) {
	p, cwd, _, _ := proc(t, fauxSettings(t, `{"responses":[{"toolCalls":[{"name":"bash","arguments":{"command":"sleep 1000 >/dev/null 2>&1 & echo $! > pid"}}]},{"text":"left it"}]}`))
	p.Environ = append(p.Environ, "GOPI_SANDBOX=off")
	h, err := p.Conversation(context.Background(), Agent{Flags: flags()}, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if _, err := h.Assembly.Runtime().Prompt(context.Background(), ai.UserText("leave one", 1)); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(cwd, "pid"))
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		t.Fatalf("pid %q: %v", b, err)
	}
	if err := syscall.Kill(pid, 0); err != nil {
		t.Fatalf("the command left nothing running: %v", err)
	}
	p.Interrupts().Kill()
	for i := 0; syscall.Kill(pid, 0) == nil; i++ { // until the killed process is reaped
		if i == 1000 {
			t.Fatal("a forced exit left the host's process running")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A second signal ends the process at once, the result line of the
// forced exit written first, naming the session.
func TestSecondSignalWritesTheForcedExitsResult(t *testing.T) {
	p, cwd, out, errOut := proc(t, fauxSettings(t, `{"responses":[
		{"toolCalls":[{"name":"bash","arguments":{"command":"touch started"}}]},
		{"text":"late","delayMs":3000,"ignoreCancel":true}]}`))
	p.Signals = true
	exited := make(chan string, 1)
	p.Exit = func(code int) { exited <- strconv.Itoa(code) + " " + out.String() }
	done := make(chan error, 1)
	go func() { done <- run(p, RunOptions{Mode: mode.JSON}, "wait") }()
	for i := 0; ; i++ {
		if _, err := os.Stat(filepath.Join(cwd, "started")); err == nil {
			break
		}
		if i == 1000 {
			t.Fatal("the run's command never ran")
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond) // the second request under way: the trap holds for its 3s
	for _, s := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP} {
		if err := syscall.Kill(os.Getpid(), s); err != nil {
			t.Fatal(err)
		}
	}
	var at string
	select {
	case at = <-exited:
	case err := <-done:
		t.Fatalf("the run ended without a forced exit: %v %q", err, errOut)
	}
	<-done
	code, line, _ := strings.Cut(at, " ")
	r := oneResult(t, line)
	if code != "130" || r.Reason != "aborted" || r.Session.File == "" || !strings.Contains(errOut.String(), "gopi: interrupted again: exiting at once") {
		t.Fatalf("exit %s, result %+v, stderr %q", code, r, errOut)
	}
	if out.String() != line {
		t.Errorf("written after the forced exit's line: %q", strings.TrimPrefix(out.String(), line))
	}
}
