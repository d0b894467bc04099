package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
)

// When stdin is an open pipe that stays silent and stderr is a terminal,
// gopi says what it is waiting for (instead of hanging silently), then
// runs once the prompt arrives.
func TestWaitingForStdinIsSaidOnATerminal(t *testing.T) {
	e := newChatEnv(t)
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	defer tty.Close()
	stdinR, stdinW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(gopiBinary(t), "run", "--provider", "faux", "--no-tools")
	cmd.Dir, cmd.Env = e.dir, e.environ()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdinR, tty, tty
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stdinR.Close()
	out := make(chan string, 1)
	go func() {
		var buf bytes.Buffer
		b := make([]byte, 1024)
		for !strings.Contains(buf.String(), "waiting for the prompt on stdin") {
			n, err := ptmx.Read(b)
			buf.Write(b[:n])
			if err != nil {
				break
			}
		}
		out <- buf.String()
	}()
	select {
	case got := <-out:
		if !strings.Contains(got, "waiting for the prompt on stdin") {
			t.Fatalf("terminal shows %q", got)
		}
	case <-time.After(expectTimeout):
		t.Fatal("no notice while stdin stayed silent")
	}
	if _, err := stdinW.WriteString("say hi\n"); err != nil {
		t.Fatal(err)
	}
	stdinW.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("gopi run after the prompt arrived: %v", err)
	}
}
