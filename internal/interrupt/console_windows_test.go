package interrupt

import (
	"bytes"
	"sync"
	"syscall"
	"testing"

	"golang.org/x/sys/windows"
)

// fakeCtrl is a console whose control events the test sends: Wine has
// no console, so GenerateConsoleCtrlEvent cannot reach a process there.
type fakeCtrl struct {
	mu     sync.Mutex
	handle func(uint32) bool
}

func (f *fakeCtrl) Watch(h func(uint32) bool) (func(), error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.handle = h
	return func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.handle = nil
	}, nil
}

// send delivers event as the console would; false: nobody took it.
func (f *fakeCtrl) send(event uint32) bool {
	f.mu.Lock()
	h := f.handle
	f.mu.Unlock()
	return h != nil && h(event)
}

func useCtrl(t *testing.T) *fakeCtrl {
	f := &fakeCtrl{}
	t.Cleanup(SetConsole(f))
	return f
}

// A second Ctrl-C exits at once with 130; the window closing is left to
// Go's handler (SIGTERM, the abort path).
func TestWindowsSecondCtrlCExitsAtOnce(t *testing.T) {
	ctrl := useCtrl(t)
	exited := make(chan int, 1)
	ctx, stop := Trap(t.Context(), Config{Stderr: &bytes.Buffer{}, Signals: true, Exit: func(code int) { exited <- code }})
	defer stop()
	if ctrl.send(windows.CTRL_CLOSE_EVENT) {
		t.Error("the close event was taken; Go's handler should have it")
	}
	if !ctrl.send(windows.CTRL_C_EVENT) {
		t.Fatal("Ctrl-C was not taken")
	}
	<-ctx.Done()
	select {
	case c := <-exited:
		t.Fatalf("exited (%d) on the first Ctrl-C", c)
	default:
	}
	ctrl.send(windows.CTRL_C_EVENT)
	if c := <-exited; c != ExitCode {
		t.Fatalf("exit code %d", c)
	}
}

// The real handler: the callback registered with SetConsoleCtrlHandler
// passes an event to the handler being watched and declines it once the
// watch stopped (Go's handler and then the system's get it).
func TestWindowsConsoleCallback(t *testing.T) {
	got := make(chan uint32, 1)
	stop, err := winConsole{}.Watch(func(ev uint32) bool { got <- ev; return true })
	if err != nil {
		t.Fatalf("SetConsoleCtrlHandler: %v", err)
	}
	if r, _, _ := syscall.SyscallN(ctrlCallback, windows.CTRL_BREAK_EVENT); r != 1 {
		t.Errorf("callback returned %d with a handler, want 1", r)
	}
	if ev := <-got; ev != windows.CTRL_BREAK_EVENT {
		t.Errorf("handler got %d", ev)
	}
	stop()
	if r, _, _ := syscall.SyscallN(ctrlCallback, windows.CTRL_BREAK_EVENT); r != 0 {
		t.Errorf("callback returned %d after stop, want 0", r)
	}
}
