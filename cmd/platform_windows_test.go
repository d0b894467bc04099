package cmd

import (
	"bytes"
	"os"
	"testing"
	"time"

	"golang.org/x/sys/windows"
)

// A write to a pipe whose reader is gone is the broken stdout that ends a
// run (exitWriter), as EPIPE does on Unix.
func TestWindowsBrokenPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	r.Close()
	_, err = w.Write([]byte("x"))
	if err == nil || !isBrokenPipe(err) {
		t.Fatalf("write to a pipe without reader: %v, not a broken pipe", err)
	}
	gone := make(chan struct{})
	ew := &exitWriter{w: w, gone: func() { close(gone) }}
	_, _ = ew.Write([]byte(`{"type":"text"}` + "\n"))
	if n, err := ew.Write([]byte("more\n")); n != 5 || err != nil {
		t.Errorf("a write after the pipe broke: %d, %v; want it swallowed", n, err)
	}
	select {
	case <-gone:
	default:
		t.Fatal("exitWriter did not report the broken pipe")
	}
}

// Ctrl-Break (and Ctrl-C) reach gopi as os.Interrupt: the first aborts
// the run, as on Unix.
func TestWindowsCtrlBreakAborts(t *testing.T) {
	sys := &System{Stderr: &bytes.Buffer{}, Signals: true, Exit: func(int) {}}
	aborted := make(chan struct{})
	stop := trapSignals(sys, func() { close(aborted) }, nil)
	defer stop()
	if err := windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, 0); err != nil {
		t.Skipf("no console to send Ctrl-Break to (%v): Wine runs the test without one; "+
			"the abort path after os.Interrupt is the one the Unix signal tests drive", err)
	}
	select {
	case <-aborted:
	case <-time.After(30 * time.Second):
		t.Fatal("Ctrl-Break did not abort")
	}
}
