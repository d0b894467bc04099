//go:build linux

package term

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"gopi/pkg/chat"
)

// ptyTerm is a Terminal on a pseudo-terminal: what the test types goes
// to its master side, what the Terminal writes is kept.
type ptyTerm struct {
	t       *testing.T
	master  *os.File
	tty     *os.File
	mu      sync.Mutex
	out     bytes.Buffer
	done    chan struct{}
	history string
	before  *unix.Termios
}

func newPty(t *testing.T) *ptyTerm {
	t.Helper()
	master, tty, err := pty.Open()
	if err != nil {
		t.Fatalf("no pseudo-terminal: %v", err)
	}
	p := &ptyTerm{t: t, master: master, tty: tty, done: make(chan struct{}), history: filepath.Join(t.TempDir(), "history")}
	p.before = p.modes()
	go func() {
		defer close(p.done)
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			p.mu.Lock()
			p.out.Write(buf[:n])
			p.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		// readline's reader of a closed Terminal still waits for a key;
		// one ends its read (the terminal is back in line mode).
		_, _ = master.WriteString("\n")
		tty.Close()
		master.Close()
		<-p.done
	})
	return p
}

func (p *ptyTerm) open(width func() int) *Terminal {
	p.t.Helper()
	term, err := Open(Config{In: p.tty, Out: p.tty, HistoryFile: p.history, Width: width})
	if err != nil {
		p.t.Fatal(err)
	}
	p.t.Cleanup(term.Close)
	return term
}

func (p *ptyTerm) modes() *unix.Termios {
	p.t.Helper()
	m, err := unix.IoctlGetTermios(int(p.tty.Fd()), unix.TCGETS)
	if err != nil {
		p.t.Fatal(err)
	}
	return m
}

func (p *ptyTerm) typeKeys(s string) {
	p.t.Helper()
	if _, err := p.master.WriteString(s); err != nil {
		p.t.Fatal(err)
	}
}

// expect waits until the terminal wrote s.
func (p *ptyTerm) expect(s string) {
	p.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		p.mu.Lock()
		out := p.out.String()
		p.mu.Unlock()
		if strings.Contains(out, s) {
			return
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("the terminal did not write %q:\n%q", s, out)
		}
		time.Sleep(2 * time.Millisecond) // polling the output, not waiting for an event
	}
}

type lineResult struct {
	line chat.Line
	err  error
}

func readLine(term *Terminal) <-chan lineResult {
	ch := make(chan lineResult, 1)
	go func() {
		l, err := term.ReadLine()
		ch <- lineResult{l, err}
	}()
	return ch
}

func wait(t *testing.T, ch <-chan lineResult) lineResult {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(10 * time.Second):
		t.Fatal("ReadLine did not return")
		return lineResult{}
	}
}

// The terminal is raw from Open to Close (Ctrl-C is a key, never a
// signal), bracketed paste is on, lines are edited with the keys
// readline knows, and Close gives the terminal back its modes, once.
func TestTerminalReadsEditedLinesInRawMode(t *testing.T) {
	p := newPty(t)
	term := p.open(func() int { return 80 })
	raw := p.modes()
	if raw.Lflag&(unix.ICANON|unix.ISIG|unix.ECHO) != 0 {
		t.Fatalf("not raw after Open: lflag %#x", raw.Lflag)
	}
	p.expect(bracketedPasteOn)

	ch := readLine(term)
	p.typeKeys("helo")
	p.expect("helo")
	p.typeKeys("\x1b[Dl\r") // left, then l: "hello"
	if r := wait(t, ch); r.err != nil || r.line != (chat.Line{Text: "hello"}) {
		t.Fatalf("ReadLine = %+v, %v", r.line, r.err)
	}

	ch = readLine(term)
	p.typeKeys("later\x1b\r") // Alt-Enter
	if r := wait(t, ch); r.err != nil || r.line != (chat.Line{Text: "later", FollowUp: true}) {
		t.Fatalf("Alt-Enter: ReadLine = %+v, %v", r.line, r.err)
	}

	ch = readLine(term)
	p.typeKeys("\x1b[200~one\ntwo\n\x1b[201~\r") // pasted with line breaks
	if r := wait(t, ch); r.err != nil || r.line != (chat.Line{Text: "one\ntwo"}) {
		t.Fatalf("paste: ReadLine = %+v, %v", r.line, r.err)
	}

	ch = readLine(term)
	p.typeKeys("\x03") // Ctrl-C
	if r := wait(t, ch); !errors.Is(r.err, chat.ErrInterrupt) {
		t.Fatalf("Ctrl-C: ReadLine = %+v, %v", r.line, r.err)
	}

	ch = readLine(term)
	p.typeKeys("\x04") // Ctrl-D on an empty line
	if r := wait(t, ch); !errors.Is(r.err, io.EOF) {
		t.Fatalf("Ctrl-D: ReadLine = %+v, %v", r.line, r.err)
	}

	term.Close()
	term.Close()
	p.expect(bracketedPasteOff)
	if after := p.modes(); *after != *p.before {
		t.Fatalf("modes after Close %+v, want %+v", after, p.before)
	}
	hist, err := os.ReadFile(p.history)
	if err != nil || !strings.Contains(string(hist), "hello\n") {
		t.Fatalf("history %q, %v", hist, err)
	}
}

// Keys typed while no ReadLine waits (the chat is busy with a run) stay
// for the next one: an Alt-Enter line leaves the editor reading nothing
// more until it is asked, so each line typed ahead comes back whole, in
// order, with its own Alt-Enter or none (and, under -race, without the
// editor touching its line while ReadLine draws it).
func TestTerminalKeepsKeysTypedAheadForTheNextLine(t *testing.T) {
	p := newPty(t)
	term := p.open(func() int { return 80 })
	for i := range 20 {
		ch := readLine(term)
		p.typeKeys(fmt.Sprintf("later%d\x1b\r", i))
		if r := wait(t, ch); r.err != nil || r.line != (chat.Line{Text: fmt.Sprintf("later%d", i), FollowUp: true}) {
			t.Fatalf("Alt-Enter %d: ReadLine = %+v, %v", i, r.line, r.err)
		}
		p.typeKeys(fmt.Sprintf("ahead%d\r", i))
		if r := wait(t, readLine(term)); r.err != nil || r.line != (chat.Line{Text: fmt.Sprintf("ahead%d", i)}) {
			t.Fatalf("typed ahead %d: ReadLine = %+v, %v", i, r.line, r.err)
		}
	}
}

// Interrupt ends a waiting ReadLine with an error and gives the terminal
// its modes back; the prompt set is drawn; Width is Config.Width.
func TestTerminalInterruptAndPrompt(t *testing.T) {
	p := newPty(t)
	term := p.open(func() int { return 42 })
	if w := term.Width(); w != 42 {
		t.Fatalf("Width() = %d, want Config.Width's 42", w)
	}
	ch := readLine(term)
	term.SetPrompt("steer › ")
	p.expect("steer › ")
	out := term.Out()
	if _, err := io.WriteString(out, "a line above\n"); err != nil {
		t.Fatal(err)
	}
	p.expect("a line above")
	term.Interrupt()
	if r := wait(t, ch); r.err == nil {
		t.Fatalf("ReadLine after Interrupt = %+v, want an error", r.line)
	}
	if after := p.modes(); *after != *p.before {
		t.Fatalf("modes after Interrupt %+v, want %+v", after, p.before)
	}
}

// Open refuses streams that are not files, and a file that is no
// terminal with a SetupError, leaving nothing changed.
func TestOpenRefusesWhatIsNoTerminal(t *testing.T) {
	p := newPty(t)
	for _, c := range []Config{{In: strings.NewReader(""), Out: p.tty}, {In: p.tty, Out: io.Discard}} {
		if _, err := Open(c); !errors.Is(err, ErrNotTerminal) {
			t.Fatalf("Open(%T, %T) = %v, want ErrNotTerminal", c.In, c.Out, err)
		}
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	_, err = Open(Config{In: r, Out: w})
	var setup *SetupError
	if !errors.As(err, &setup) || !strings.HasPrefix(err.Error(), "cannot set up the terminal: ") || setup.Unwrap() == nil {
		t.Fatalf("Open(pipe) = %v, want a SetupError", err)
	}
	if after := p.modes(); *after != *p.before {
		t.Fatalf("modes changed: %+v", after)
	}
}
