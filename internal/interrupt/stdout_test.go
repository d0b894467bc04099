package interrupt

import (
	"bytes"
	"os"
	"testing"
	"time"

	"gopi/pkg/loop"
)

// A tool whose progress event waits on stdout still stops within the
// time a cancelled run waits for its tools.
func TestStopWaitIsWellBelowTheToolGrace(t *testing.T) {
	if 2*StopWait > loop.DefaultToolGrace {
		t.Fatalf("StopWait %v, loop.DefaultToolGrace %v", StopWait, loop.DefaultToolGrace)
	}
}

// stuckWriter fails as a write that waited StopWait in vain.
type stuckWriter struct{ writes int }

func (s *stuckWriter) Write([]byte) (int, error) {
	s.writes++
	return 0, os.ErrDeadlineExceeded
}

// A write that waited StopWait in vain drops the rest; the run is not
// cancelled by it (it was already).
func TestStuckStdoutDropsTheRest(t *testing.T) {
	w := &stuckWriter{}
	gone := false
	s := NewStdout(w, func() { gone = true })
	if _, err := s.Write([]byte("a\n")); !IsStuck(err) {
		t.Fatalf("write: %v", err)
	}
	if n, err := s.Write([]byte("b\n")); n != 2 || err != nil || w.writes != 1 {
		t.Fatalf("a write after: %d, %v, %d writes", n, err, w.writes)
	}
	if !s.Stuck() || s.Gone() || gone {
		t.Fatalf("stuck %v, gone %v, gone called %v", s.Stuck(), s.Gone(), gone)
	}
	if line := s.Lost(true); line != StuckLine {
		t.Fatalf("Lost: %q", line)
	}
	if line := NewStdout(w, nil).Lost(true); line != "" {
		t.Fatalf("Lost of a stdout still read: %q", line)
	}
}

// Without Signals nothing is trapped: the streams are written at once,
// and a buffer is not bounded.
func TestTrapRunWithoutSignals(t *testing.T) {
	var out, errOut bytes.Buffer
	r := TrapRun(t.Context(), Config{Stdout: &out, Stderr: &errOut})
	r.Ready()
	if _, err := r.Stdout().Write([]byte("x")); err != nil || out.String() != "x" {
		t.Fatalf("stdout %q, %v", out.String(), err)
	}
	if _, err := r.Stderr().Write([]byte("y")); err != nil || errOut.String() != "y" {
		t.Fatalf("stderr %q, %v", errOut.String(), err)
	}
	r.Stop()
	if r.Context().Err() == nil {
		t.Fatal("Stop did not cancel the run's context")
	}
	if p := NewPipes(&out, &errOut); p.Bounder() != nil || p.Out != &out || p.Err != &errOut {
		t.Fatal("a buffer's writes are bounded")
	}
}

// A forced exit's last words get ForceWait, not more.
func TestForceExitBoundsTheLastWords(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	var code int
	start := time.Now()
	forceExit(Config{Stderr: &bytes.Buffer{}, Exit: func(c int) { code = c }}, func() { <-block })
	if d := time.Since(start); d > 10*ForceWait || code != ExitCode {
		t.Fatalf("exit %d after %v", code, d)
	}
}

// A forced exit's flush gets FlushWait, not more: a collector that does
// not answer does not keep gopi from exiting.
func TestForceExitBoundsTheFlush(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	var code int
	flushed := make(chan int, 1)
	start := time.Now()
	forceExit(Config{Stderr: &bytes.Buffer{}, Exit: func(c int) { code = c },
		Flush: func(c int) { flushed <- c; <-block }}, nil)
	if d := time.Since(start); d > 10*FlushWait || code != ExitCode || <-flushed != ExitCode {
		t.Fatalf("exit %d after %v", code, d)
	}
}
