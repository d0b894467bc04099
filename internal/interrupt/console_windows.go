package interrupt

import (
	"os"
	"sync"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/windows"
)

// CtrlEvents is where the console's control events come from (Ctrl-C,
// Ctrl-Break, the window closing): the console itself, or a fake in tests,
// since Wine has no console that sends them.
type CtrlEvents interface {
	// Watch has handle called with each control event (CTRL_C_EVENT …)
	// until stop; handle reports whether it took the event.
	Watch(handle func(event uint32) bool) (stop func(), err error)
}

// consoleCtrl is the source of control events the traps watch.
var consoleCtrl CtrlEvents = winConsole{}

// SetConsole makes the traps watch c instead of the console, and returns
// what puts the console back: for tests, which cannot send control
// events to a process under Wine.
func SetConsole(c CtrlEvents) (restore func()) {
	old := consoleCtrl
	consoleCtrl = c
	return func() { consoleCtrl = old }
}

// watchConsole makes Ctrl-C and Ctrl-Break in gopi's console arrive on ch
// as os.Interrupt, the abort path (a second one exits at once, 130), as
// SIGINT does on Unix. Other events (the window closing, logoff,
// shutdown) are left to Go's own handler, which sends SIGTERM. Where no
// handler can be set, Go's handler turns Ctrl-C into os.Interrupt all
// the same.
func watchConsole(ch chan<- os.Signal) (stop func()) {
	stop, err := consoleCtrl.Watch(func(event uint32) bool {
		switch event {
		case windows.CTRL_C_EVENT, windows.CTRL_BREAK_EVENT:
			select {
			case ch <- os.Interrupt:
			default: // two are waiting already: the second exits
			}
			return true
		}
		return false
	})
	if err != nil {
		return func() {}
	}
	return stop
}

// winConsole takes control events with SetConsoleCtrlHandler. One
// callback is registered for the process (a callback cannot be freed)
// and passes each event to the handler being watched, if any.
type winConsole struct{}

var (
	ctrlOnce     sync.Once
	ctrlCallback uintptr
	ctrlErr      error
	ctrlHandler  atomic.Pointer[func(uint32) bool]

	procSetConsoleCtrlHandler = windows.NewLazySystemDLL("kernel32.dll").NewProc("SetConsoleCtrlHandler")
)

func (winConsole) Watch(handle func(uint32) bool) (func(), error) {
	ctrlOnce.Do(func() {
		ctrlCallback = syscall.NewCallback(func(event uintptr) uintptr {
			if h := ctrlHandler.Load(); h != nil && (*h)(uint32(event)) {
				return 1
			}
			return 0 // the next handler: Go's, then the system's
		})
		if ok, _, err := procSetConsoleCtrlHandler.Call(ctrlCallback, 1); ok == 0 {
			ctrlErr = err
		}
	})
	if ctrlErr != nil {
		return nil, ctrlErr
	}
	p := &handle
	ctrlHandler.Store(p)
	return func() { ctrlHandler.CompareAndSwap(p, nil) }, nil
}
