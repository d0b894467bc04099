//go:build unix

package interrupt

import (
	"bytes"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A second interrupt exits at once even when writing the result object
// blocks (a stdout nobody reads).
func TestSecondInterruptDoesNotWaitForStdout(t *testing.T) {
	exited := make(chan int, 1)
	block := make(chan struct{})
	defer close(block)
	var stderr bytes.Buffer
	r := TrapRun(t.Context(), Config{Signals: true, Stdout: &bytes.Buffer{}, Stderr: &stderr, Exit: func(code int) { exited <- code }})
	defer r.Stop()
	r.OnForce(func() { <-block })
	r.Ready()
	for range 2 {
		if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	select {
	case code := <-exited:
		if code != ExitCode {
			t.Fatalf("exit code %d", code)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the second SIGINT waited for a blocked write")
	}
	if r.Context().Err() == nil {
		t.Fatal("the first SIGINT did not cancel the run")
	}
	if !strings.Contains(stderr.String(), "gopi: interrupted again: exiting at once") {
		t.Fatalf("stderr %q", stderr.String())
	}
}

// The first SIGINT cancels the context; a second exits at once with 130,
// whatever the command is doing, and stops what Kill stops first.
func TestSecondInterruptExitsAtOnce(t *testing.T) {
	exited := make(chan int, 1)
	killed := make(chan struct{})
	ctx, stop := Trap(t.Context(), Config{Signals: true, Stderr: &bytes.Buffer{},
		Exit: func(code int) { exited <- code }, Kill: func() { close(killed) }})
	defer stop()
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the first SIGINT did not cancel the context")
	}
	select {
	case code := <-exited:
		t.Fatalf("exited (%d) on the first SIGINT", code)
	default:
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-exited:
		if code != ExitCode {
			t.Fatalf("exit code %d", code)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the second SIGINT did not exit")
	}
	select {
	case <-killed:
	default:
		t.Fatal("the forced exit did not call Kill")
	}
}

// A write to a pipe whose reader is gone fails with EPIPE (SIGPIPE is
// caught while trapped): the run's stdout cancels the run and takes
// nothing more.
func TestStdoutReaderGoneCancelsTheRun(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	pr.Close()
	defer pw.Close()
	r := TrapRun(t.Context(), Config{Signals: true, Stdout: pw, Stderr: &bytes.Buffer{}})
	defer r.Stop()
	if _, err := r.Stdout().Write([]byte("one\n")); !IsBrokenPipe(err) {
		t.Fatalf("first write: %v, want EPIPE", err)
	}
	if n, err := r.Stdout().Write([]byte("two\n")); n != 4 || err != nil {
		t.Fatalf("a write after the pipe broke: %d, %v; want it dropped", n, err)
	}
	if r.Context().Err() == nil || !r.Stdout().Gone() || r.Stdout().Stuck() {
		t.Fatalf("ctx %v, gone %v, stuck %v", r.Context().Err(), r.Stdout().Gone(), r.Stdout().Stuck())
	}
}
