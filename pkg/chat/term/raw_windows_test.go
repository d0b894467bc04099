package term

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/windows"

	"gopi/internal/wintest"
)

// The console modes a fresh Windows console starts with.
const (
	cookedIn  = windows.ENABLE_PROCESSED_INPUT | windows.ENABLE_LINE_INPUT | windows.ENABLE_ECHO_INPUT | 0x20 | 0x40 | 0x80 // insert, quick edit, extended flags
	cookedOut = windows.ENABLE_PROCESSED_OUTPUT | windows.ENABLE_WRAP_AT_EOL_OUTPUT
)

// fakeConsole is the console of a terminal whose stdin and stdout are pipes:
// Wine gives its programs no console, so the chat's modes are kept here.
type fakeConsole struct {
	mu         sync.Mutex
	modes      map[windows.Handle]uint32
	refuse     map[windows.Handle]bool // setMode fails
	panicWidth atomic.Bool
}

func (f *fakeConsole) getMode(h windows.Handle) (uint32, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	m, ok := f.modes[h]
	if !ok {
		return 0, windows.ERROR_INVALID_HANDLE
	}
	return m, nil
}

func (f *fakeConsole) setMode(h windows.Handle, mode uint32) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.modes[h]; !ok || f.refuse[h] {
		return windows.ERROR_INVALID_PARAMETER
	}
	f.modes[h] = mode
	return nil
}

func (f *fakeConsole) width(windows.Handle) (int, error) {
	if f.panicWidth.Load() {
		panic("the console went away")
	}
	return 100, nil
}

func (f *fakeConsole) mode(h windows.Handle) uint32 {
	m, _ := f.getMode(h)
	return m
}

// consolePipes is a Terminal's stdin and stdout as pipes with a fake
// console, and a reader of its output.
type consolePipes struct {
	t       *testing.T
	con     *fakeConsole
	in, out windows.Handle // the console handles: the terminal's stdin and stdout
	inR     *os.File
	outW    *os.File
	keys    *os.File // what the user types
	history string
}

func newConsolePipes(t *testing.T) *consolePipes {
	t.Helper()
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &consolePipes{t: t, inR: inR, outW: outW, keys: inW, in: windows.Handle(inR.Fd()), out: windows.Handle(outW.Fd()),
		history: filepath.Join(wintest.TempDir(t), "chat_history")}
	p.con = &fakeConsole{modes: map[windows.Handle]uint32{p.in: cookedIn, p.out: cookedOut}, refuse: map[windows.Handle]bool{}}
	old := console
	console = p.con
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = io.Copy(io.Discard, outR)
	}()
	t.Cleanup(func() {
		inW.Close()
		outW.Close()
		<-done
		outR.Close()
		inR.Close()
		console = old
	})
	return p
}

func (p *consolePipes) open() (*Terminal, error) {
	return Open(Config{In: p.inR, Out: p.outW, HistoryFile: p.history})
}

func (p *consolePipes) typeKeys(s string) {
	p.t.Helper()
	if _, err := p.keys.WriteString(s); err != nil {
		p.t.Fatal(err)
	}
}

func (p *consolePipes) modesAre(when string, in, out uint32) {
	p.t.Helper()
	if got := p.con.mode(p.in); got != in {
		p.t.Errorf("stdin's mode %s %#x, want %#x", when, got, in)
	}
	if got := p.con.mode(p.out); got != out {
		p.t.Errorf("stdout's mode %s %#x, want %#x", when, got, out)
	}
}

// The terminal turns the console raw with VT input and output for as
// long as it is open, and its line editor reads the VT sequences of the
// keys: left, up (history), Home, right, Delete, End. The modes are back
// when it closes.
func TestWindowsChatLineEditing(t *testing.T) {
	p := newConsolePipes(t)
	term, err := p.open()
	if err != nil {
		t.Fatal(err)
	}
	defer term.Close()
	wantIn := uint32(cookedIn&^(windows.ENABLE_PROCESSED_INPUT|windows.ENABLE_LINE_INPUT|windows.ENABLE_ECHO_INPUT)) | windows.ENABLE_VIRTUAL_TERMINAL_INPUT
	p.modesAre("while open", wantIn, cookedOut|windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING)
	p.typeKeys("hello\x1b[D\x1b[DX\r") // ← ← X: helXlo
	if l, err := term.ReadLine(); err != nil || l.Text != "helXlo" {
		t.Fatalf("first line %q, %v; want helXlo", l.Text, err)
	}
	p.typeKeys("\x1b[A\x1b[H\x1b[C\x1b[3~\x1b[FY\r") // ↑ (helXlo), Home, →, Delete (e), End, Y: hlXloY
	if l, err := term.ReadLine(); err != nil || l.Text != "hlXloY" {
		t.Fatalf("second line %q, %v; want hlXloY", l.Text, err)
	}
	p.typeKeys("\x04") // Ctrl-D on an empty line ends the chat
	if _, err := term.ReadLine(); err != io.EOF {
		t.Fatalf("Ctrl-D: %v, want io.EOF", err)
	}
	term.Close()
	p.modesAre("after Close", cookedIn, cookedOut)
}

// A panic while the line editor is being set up (it asks the console's
// width) still gives the console its modes back.
func TestWindowsChatRestoresConsoleOnPanic(t *testing.T) {
	p := newConsolePipes(t)
	p.con.panicWidth.Store(true)
	func() {
		defer func() {
			if r := recover(); r != "the console went away" {
				t.Errorf("recovered %v, want the width's panic", r)
			}
		}()
		term, _ := p.open()
		if term != nil {
			term.Close()
		}
	}()
	p.modesAre("after the panic", cookedIn, cookedOut)
}

// A console that refuses raw input is a SetupError (the chat's usage
// error), and no mode is left changed.
func TestWindowsChatConsoleRefused(t *testing.T) {
	p := newConsolePipes(t)
	p.con.refuse[p.in] = true
	var setup *SetupError
	if _, err := p.open(); !errors.As(err, &setup) {
		t.Fatalf("Open: %v, want a SetupError", err)
	}
	p.modesAre("after the refusal", cookedIn, cookedOut)
}

// A panic of the display after set-up (it asks the console's width as it
// draws, on the Agent's goroutine) leaves the terminal to the chat's
// deferred Close, which restores the modes as the normal end does.
func TestWindowsChatDisplayPanicRestores(t *testing.T) {
	p := newConsolePipes(t)
	term, err := p.open()
	if err != nil {
		t.Fatal(err)
	}
	p.con.panicWidth.Store(true)
	func() {
		defer func() { _ = recover() }()
		term.Width()
		t.Error("Width did not panic")
	}()
	term.Close()
	term.Close() // twice, as an interrupt and the deferred Close may
	p.modesAre("after Close", cookedIn, cookedOut)
}
