package interrupt

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"
)

// brokenWriter fails as a write to a pipe whose reader is gone.
type brokenWriter struct{ writes int }

func (b *brokenWriter) Write([]byte) (int, error) {
	b.writes++
	return 0, syscall.EPIPE
}

func TestStdoutReaderGoneCallsGoneOnceAndDropsTheRest(t *testing.T) {
	w := &brokenWriter{}
	calls := 0
	s := NewStdout(w, func() { calls++ })
	if n, err := s.Write([]byte("one\n")); n != 0 || !IsBrokenPipe(err) {
		t.Fatalf("first write: %d, %v; want EPIPE", n, err)
	}
	for range 2 {
		if n, err := s.Write([]byte("two\n")); n != 4 || err != nil {
			t.Fatalf("a write after: %d, %v", n, err)
		}
	}
	if calls != 1 || w.writes != 1 || !s.Gone() || s.Stuck() {
		t.Fatalf("gone called %d, %d writes, gone %v, stuck %v", calls, w.writes, s.Gone(), s.Stuck())
	}
	if got := s.Lost(false); got != "gopi: stdout was closed by its reader: the run was aborted; the session keeps what was done" {
		t.Fatalf("Lost(false) = %q", got)
	}
	if got := s.Lost(true); got != "gopi: stdout was closed by its reader: its end was not written; the session keeps what was done" {
		t.Fatalf("Lost(true) = %q", got)
	}
	// Without a gone func nothing breaks.
	s = NewStdout(&brokenWriter{}, nil)
	if _, err := s.Write([]byte("x")); !IsBrokenPipe(err) || !s.Gone() {
		t.Fatalf("err %v gone %v", err, s.Gone())
	}
}

// failingWriter fails with an error that is neither EPIPE nor a deadline.
type failingWriter struct{ writes int }

func (f *failingWriter) Write(p []byte) (int, error) {
	f.writes++
	return 1, errors.New("disk full")
}

func TestStdoutOtherErrorsKeepWriting(t *testing.T) {
	w := &failingWriter{}
	s := NewStdout(w, func() { t.Fatal("gone called on an error that is not EPIPE") })
	for range 2 {
		if n, err := s.Write([]byte("abc")); n != 1 || err == nil || err.Error() != "disk full" {
			t.Fatalf("write: %d, %v", n, err)
		}
	}
	if w.writes != 2 || s.Gone() || s.Stuck() || s.Lost(false) != "" {
		t.Fatalf("%d writes, gone %v, stuck %v", w.writes, s.Gone(), s.Stuck())
	}
}

func TestStdoutWritesPassThroughWhole(t *testing.T) {
	var buf bytes.Buffer
	s := NewStdout(&buf, nil)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				s.Write([]byte("0123456789\n"))
			}
		}()
	}
	wg.Wait()
	for _, line := range bytes.Split(bytes.TrimSuffix(buf.Bytes(), []byte("\n")), []byte("\n")) {
		if string(line) != "0123456789" {
			t.Fatalf("a write was split or mixed: %q", line)
		}
	}
	if buf.Len() != 8*50*11 {
		t.Fatalf("wrote %d bytes", buf.Len())
	}
}

func TestStuckLineNamesStopWait(t *testing.T) {
	if StuckLine != "gopi: stdout was not read for 1s after the run was aborted: the rest of the output was dropped; the session keeps what was done" {
		t.Fatalf("StuckLine = %q", StuckLine)
	}
}

// deadlines is a deadlineWriter that records the deadlines it is given.
type deadlines struct {
	mu  sync.Mutex
	set []time.Time
	buf bytes.Buffer
}

func (d *deadlines) Write(p []byte) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.buf.Write(p)
}

func (d *deadlines) SetWriteDeadline(t time.Time) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.set = append(d.set, t)
	return nil
}

func (d *deadlines) last(t *testing.T) time.Time {
	t.Helper()
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.set) == 0 {
		t.Fatal("no deadline was set")
	}
	return d.set[len(d.set)-1]
}

// aboutStopWait asserts a deadline StopWait from now.
func aboutStopWait(t *testing.T, d time.Time) {
	t.Helper()
	if left := time.Until(d); left < StopWait-time.Second/2 || left > StopWait {
		t.Fatalf("deadline in %v, want StopWait (%v)", left, StopWait)
	}
}

func TestBoundedOutDeadlines(t *testing.T) {
	out, errw := &deadlines{}, &deadlines{}
	b := &boundedOut{f: out, stderr: &boundedOut{f: errw}}
	if _, err := b.Write([]byte("free")); err != nil || len(out.set) != 0 || out.buf.String() != "free" {
		t.Fatalf("an unbounded write set %d deadlines (%v)", len(out.set), err)
	}
	b.bound(true)
	aboutStopWait(t, out.last(t))
	aboutStopWait(t, errw.last(t))
	n := len(out.set)
	if _, err := b.Write([]byte("x")); err != nil || len(out.set) != n+1 {
		t.Fatalf("a bounded write set no deadline of its own (%v)", err)
	}
	aboutStopWait(t, out.last(t))
	b.bound(false)
	if !out.last(t).IsZero() || !errw.last(t).IsZero() {
		t.Fatalf("bound(false) left deadlines %v, %v", out.last(t), errw.last(t))
	}
	n = len(out.set)
	b.Write([]byte("y"))
	if len(out.set) != n {
		t.Fatal("a write after bound(false) set a deadline")
	}
	// Pipes bound their stdout; without one, Bound does nothing.
	p := &Pipes{out: b}
	p.Bound(true)
	aboutStopWait(t, out.last(t))
	if p.Bounder() == nil {
		t.Fatal("Bounder of bounded pipes is nil")
	}
	p.Bounder()(false)
	if !out.last(t).IsZero() {
		t.Fatal("Bounder(false) left a deadline")
	}
	(&Pipes{}).Bound(true)
}

func TestNewPipesOfOtherFilesAreNotBounded(t *testing.T) {
	var out, errOut bytes.Buffer
	p := NewPipes(&out, &errOut)
	p.Bound(true)
	p.Restore()
	if p.Bounder() != nil || p.Out != io.Writer(&out) || p.Err != io.Writer(&errOut) {
		t.Fatal("a buffer's writes are bounded")
	}
}

// A gated write waits until the signals are trapped.
func TestGatedWriteWaitsForReady(t *testing.T) {
	ready := make(chan struct{})
	var buf deadlines
	g := gated{&buf, func() { <-ready }}
	done := make(chan struct{})
	go func() { defer close(done); g.Write([]byte("late")) }()
	time.Sleep(20 * time.Millisecond)
	buf.mu.Lock()
	early := buf.buf.String()
	buf.mu.Unlock()
	if early != "" {
		t.Fatalf("written before ready: %q", early)
	}
	close(ready)
	<-done
	if buf.buf.String() != "late" {
		t.Fatalf("written %q", buf.buf.String())
	}
}

func TestTrapWithoutSignals(t *testing.T) {
	ctx, stop := Trap(context.Background(), Config{})
	if ctx.Err() != nil {
		t.Fatal("a trap's context is cancelled at once")
	}
	stop()
	if ctx.Err() == nil {
		t.Fatal("stop did not cancel the context")
	}
}

func TestTrapRunStopCancelsAndParentCancels(t *testing.T) {
	parent, cancel := context.WithCancel(context.Background())
	r := TrapRun(parent, Config{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}})
	defer r.Stop()
	cancel()
	if r.Context().Err() == nil {
		t.Fatal("the parent's end did not end the run")
	}
}

// The forced exit says so, gives its last words time, kills, sends what
// was recorded (Flush, told the exit code) and exits 130.
func TestForceExitOrder(t *testing.T) {
	var stderr bytes.Buffer
	var order []string
	var mu sync.Mutex
	note := func(s string) { mu.Lock(); order = append(order, s); mu.Unlock() }
	forceExit(Config{Stderr: &stderr, Kill: func() { note("kill") }, Flush: func(c int) { note(fmt.Sprintf("flush %d", c)) },
		Exit: func(c int) {
			if c != 130 {
				t.Errorf("exit code %d, want 130", c)
			}
			note("exit")
		}}, func() { time.Sleep(ForceWait / 5); note("last words") })
	if stderr.String() != "gopi: interrupted again: exiting at once\n" {
		t.Fatalf("stderr %q", stderr.String())
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"last words", "kill", "flush 130", "exit"}; !slices.Equal(order, want) {
		t.Fatalf("order %v, want %v", order, want)
	}
	// Last words that end at once are not waited for longer.
	start := time.Now()
	forceExit(Config{Stderr: io.Discard, Exit: func(int) {}}, func() {})
	if d := time.Since(start); d >= ForceWait/2 {
		t.Fatalf("the forced exit took %v after its last words", d)
	}
	// Without last words or Kill it only exits.
	code := 0
	forceExit(Config{Stderr: io.Discard, Exit: func(c int) { code = c }}, nil)
	if code != ExitCode {
		t.Fatalf("exit %d", code)
	}
}
