package cmd

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/windows"

	"gopi/internal/wintest"
)

// The console modes a fresh Windows console starts with.
const (
	cookedIn  = windows.ENABLE_PROCESSED_INPUT | windows.ENABLE_LINE_INPUT | windows.ENABLE_ECHO_INPUT | 0x20 | 0x40 | 0x80 // insert, quick edit, extended flags
	cookedOut = windows.ENABLE_PROCESSED_OUTPUT | windows.ENABLE_WRAP_AT_EOL_OUTPUT
)

// fakeConsole is the console of a chat whose stdin and stdout are pipes:
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

// chatPipes is gopi chat on pipes with a fake console, and a reader of
// its output.
type chatPipes struct {
	t       *testing.T
	con     *fakeConsole
	in, out windows.Handle // the console handles: gopi's stdin and stdout
	keys    *os.File       // what the user types
	mu      sync.Mutex
	seen    []byte
	changed chan struct{}
	code    chan int
	stderr  *bytes.Buffer
	session string
}

func startChatPipes(t *testing.T, prepare func(*chatPipes)) *chatPipes {
	t.Helper()
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &chatPipes{t: t, keys: inW, changed: make(chan struct{}, 1), code: make(chan int, 1), stderr: &bytes.Buffer{},
		in: windows.Handle(inR.Fd()), out: windows.Handle(outW.Fd())}
	p.con = &fakeConsole{modes: map[windows.Handle]uint32{p.in: cookedIn, p.out: cookedOut}, refuse: map[windows.Handle]bool{}}
	old := console
	console = p.con
	home, cwd := wintest.TempDir(t), wintest.TempDir(t)
	script := filepath.Join(home, "script.json")
	if err := os.WriteFile(script, []byte(`[{"text": "first answer"}, {"text": "second answer"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	p.session = filepath.Join(cwd, "s.jsonl")
	if prepare != nil {
		prepare(p)
	}
	sys := System{Stdin: inR, Stdout: outW, Stderr: p.stderr, StdinTTY: true, StdoutTTY: true,
		Environ: []string{"HOME=" + home, "GOPI_HOME=" + filepath.Join(home, ".gopi"), "NO_COLOR=1"},
		Getwd:   func() (string, error) { return cwd, nil }, Now: time.Now}
	go func() {
		p.code <- Main([]string{"chat", "--provider", "faux", "--model", script, "--no-tools", "--session", p.session}, sys)
		outW.Close()
	}()
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 4096)
		for {
			n, err := outR.Read(buf)
			p.mu.Lock()
			p.seen = append(p.seen, buf[:n]...)
			p.mu.Unlock()
			select {
			case p.changed <- struct{}{}:
			default:
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		inW.Close()
		<-done
		outR.Close()
		inR.Close()
		console = old
	})
	return p
}

// expect waits until the output holds s n times in all.
func (p *chatPipes) expect(s string, n int) {
	p.t.Helper()
	for {
		p.mu.Lock()
		got := bytes.Count(p.seen, []byte(s))
		p.mu.Unlock()
		if got >= n {
			return
		}
		select {
		case <-p.changed:
		case c := <-p.code:
			p.code <- c
			p.mu.Lock()
			defer p.mu.Unlock()
			p.t.Fatalf("gopi exited %d before %q showed; stderr %q, output %q", c, s, p.stderr, p.seen)
		}
	}
}

func (p *chatPipes) typeKeys(s string) {
	p.t.Helper()
	if _, err := p.keys.WriteString(s); err != nil {
		p.t.Fatal(err)
	}
}

// The chat turns the console raw with VT input and output for as long as
// it runs, and its line editor reads the VT sequences of the keys: left,
// up (history), Home, right, Delete, End. The modes are back when it ends.
func TestWindowsChatLineEditing(t *testing.T) {
	p := startChatPipes(t, nil)
	p.expect("› ", 1)
	wantIn := uint32(cookedIn&^(windows.ENABLE_PROCESSED_INPUT|windows.ENABLE_LINE_INPUT|windows.ENABLE_ECHO_INPUT)) | windows.ENABLE_VIRTUAL_TERMINAL_INPUT
	if got := p.con.mode(p.in); got != wantIn {
		t.Errorf("stdin's mode during the chat %#x, want %#x (raw, VT input)", got, wantIn)
	}
	wantOut := uint32(cookedOut | windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING)
	if got := p.con.mode(p.out); got != wantOut {
		t.Errorf("stdout's mode during the chat %#x, want %#x (VT output)", got, wantOut)
	}
	p.typeKeys("hello\x1b[D\x1b[DX\r") // ← ← X: helXlo
	p.expect("first answer", 1)
	p.typeKeys("\x1b[A\x1b[H\x1b[C\x1b[3~\x1b[FY\r") // ↑ (helXlo), Home, →, Delete (e), End, Y: hlXloY
	p.expect("second answer", 1)
	p.typeKeys("\x04") // Ctrl-D on an empty line ends the chat
	if c := <-p.code; c != ExitOK {
		t.Fatalf("exit %d; stderr %q", c, p.stderr)
	}
	if got := p.con.mode(p.in); got != cookedIn {
		t.Errorf("stdin's mode after the chat %#x, want %#x", got, cookedIn)
	}
	if got := p.con.mode(p.out); got != cookedOut {
		t.Errorf("stdout's mode after the chat %#x, want %#x", got, cookedOut)
	}
	data, err := os.ReadFile(p.session)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"helXlo", "hlXloY"} {
		if !bytes.Contains(data, []byte(fmt.Sprintf(`"text":%q`, line))) {
			t.Errorf("the session has no prompt %q:\n%s", line, data)
		}
	}
}

// A panic while the line editor is being set up (it asks the console's
// width) still gives the console its modes back; gopi exits as for an
// internal error. A later panic in the chat's own goroutine passes
// chat's deferred Close, which restores them as the normal end does.
func TestWindowsChatRestoresConsoleOnPanic(t *testing.T) {
	p := startChatPipes(t, func(p *chatPipes) { p.con.panicWidth.Store(true) })
	if c := <-p.code; c != ExitInternal || !strings.Contains(p.stderr.String(), "the console went away") {
		t.Fatalf("exit %d, stderr %q", c, p.stderr)
	}
	if got := p.con.mode(p.in); got != cookedIn {
		t.Errorf("stdin's mode after the panic %#x, want %#x", got, cookedIn)
	}
	if got := p.con.mode(p.out); got != cookedOut {
		t.Errorf("stdout's mode after the panic %#x, want %#x", got, cookedOut)
	}
}

// A console that refuses raw input is a usage error naming it, and no
// mode is left changed.
func TestWindowsChatConsoleRefused(t *testing.T) {
	p := startChatPipes(t, func(p *chatPipes) { p.con.refuse[p.in] = true })
	if c := <-p.code; c != ExitUsage || !strings.Contains(p.stderr.String(), "cannot set up the terminal") {
		t.Fatalf("exit %d, stderr %q", c, p.stderr)
	}
	if p.con.mode(p.in) != cookedIn || p.con.mode(p.out) != cookedOut {
		t.Errorf("modes changed: stdin %#x, stdout %#x", p.con.mode(p.in), p.con.mode(p.out))
	}
}

// A panic of the display after set-up (it asks the console's width as
// it draws a run's events, on the Agent's goroutine) ends the chat as
// an internal error too, the console's modes restored and the session
// file whole, instead of leaving it waiting for input.
func TestWindowsChatDisplayPanicExitsInternal(t *testing.T) {
	p := startChatPipes(t, nil)
	p.expect("› ", 1)
	p.typeKeys("hello\r")
	p.expect("first answer", 1)
	p.expect("ctx ", 1)
	p.con.panicWidth.Store(true)
	p.typeKeys("again\r")
	var c int
	select {
	case c = <-p.code:
	case <-time.After(60 * time.Second):
		p.typeKeys("\x04") // Ctrl-D ends a chat still waiting, so the test ends
		t.Fatal("the chat did not exit after its display panicked")
	}
	if c != ExitInternal || !strings.Contains(p.stderr.String(), "internal error") || !strings.Contains(p.stderr.String(), "the console went away") {
		t.Fatalf("exit %d, stderr %q", c, p.stderr)
	}
	if p.con.mode(p.in) != cookedIn || p.con.mode(p.out) != cookedOut {
		t.Errorf("modes not restored: stdin %#x, stdout %#x", p.con.mode(p.in), p.con.mode(p.out))
	}
	data, err := os.ReadFile(p.session)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasSuffix(data, []byte("\n")) || !bytes.Contains(data, []byte(`"text":"hello"`)) || !bytes.Contains(data, []byte(`"text":"first answer"`)) {
		t.Errorf("the session lost the first exchange or ends in a torn line:\n%s", data)
	}
}
