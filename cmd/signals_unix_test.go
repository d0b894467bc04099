//go:build unix

package cmd

import (
	"bytes"
	"context"
	"os"
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
	sys := &System{Stderr: &bytes.Buffer{}, Signals: true, Exit: func(code int) { exited <- code }}
	stop := trapSignals(sys, func() {}, func() { <-block })
	defer stop()
	for range 2 {
		if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	select {
	case code := <-exited:
		if code != ExitInterrupted {
			t.Fatalf("exit code %d", code)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the second SIGINT waited for a blocked write")
	}
}

// The first SIGINT cancels the run's context; a second exits at once with
// 130, whatever the run is doing.
func TestSecondInterruptExitsAtOnce(t *testing.T) {
	exited := make(chan int, 1)
	sys := &System{Stderr: &bytes.Buffer{}, Signals: true, Exit: func(code int) { exited <- code }}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	stop := trapSignals(sys, cancel, nil)
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
		if code != ExitInterrupted {
			t.Fatalf("exit code %d", code)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the second SIGINT did not exit")
	}
}
