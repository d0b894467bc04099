package term

import (
	"errors"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/chzyer/readline"

	"gopi/pkg/chat"
)

// Bracketed paste: the terminal marks pasted text, so its line breaks
// stay in the input instead of sending each line.
const (
	bracketedPasteOn  = "\x1b[?2004h"
	bracketedPasteOff = "\x1b[?2004l"
)

// Terminal is the chat's line editor (a chat.LineReader): readline over
// a raw terminal, with Alt-Enter and pasted line breaks recognised by
// keyFilter.
type Terminal struct {
	rl       *readline.Instance
	live     *liveOut  // the chat's output, above the prompt
	stdin    io.Closer // what readline reads; its Close does not reach it
	out      *os.File
	width    func() int // Config.Width
	altEnter atomic.Bool
	// restore gives the terminal back the modes rawTerminal changed.
	restore func()
	once    sync.Once
}

// Config is what a Terminal needs from the program: its streams and
// where the history is kept. The package reads no environment and opens
// no stream of its own.
type Config struct {
	// In and Out are the terminal: both must be an *os.File.
	In  io.Reader
	Out io.Writer
	// HistoryFile keeps the lines entered, one chat to the next.
	HistoryFile string
	// Width, when set, measures the terminal in place of asking it.
	Width func() int
}

// ErrNotTerminal is Open's error when In or Out is no file.
var ErrNotTerminal = errors.New("stdin or stdout is not a terminal")

// SetupError is Open's error when the terminal refused raw mode; no
// mode is left changed.
type SetupError struct{ Err error }

func (e *SetupError) Error() string { return "cannot set up the terminal: " + e.Err.Error() }
func (e *SetupError) Unwrap() error { return e.Err }

// Open puts the terminal in raw mode for the whole chat (so that Ctrl-C
// is a key, never a signal, even between two prompts) and starts
// readline with its history in c.HistoryFile. Whatever goes wrong before
// it returns, an error or a panic, the terminal gets its modes back.
func Open(c Config) (*Terminal, error) {
	in, ok1 := c.In.(*os.File)
	out, ok2 := c.Out.(*os.File)
	if !ok1 || !ok2 {
		return nil, ErrNotTerminal
	}
	t := &Terminal{out: out, width: c.Width}
	restore, err := rawTerminal(in, out)
	if err != nil {
		return nil, &SetupError{Err: err}
	}
	t.restore = restore
	opened := false
	defer func() {
		if !opened {
			t.restore()
		}
	}()
	noop := func() error { return nil }
	stdin := readline.NewCancelableStdin(in)
	t.stdin = stdin
	rl, err := readline.NewEx(&readline.Config{
		Prompt: "› ", HistoryFile: c.HistoryFile, HistoryLimit: 1000,
		Stdin: newKeyFilter(stdin), Stdout: out, Stderr: out,
		FuncIsTerminal: func() bool { return true }, FuncMakeRaw: noop, FuncExitRaw: noop,
		FuncGetWidth:        t.Width,
		FuncFilterInputRune: t.filterRune,
	})
	if err != nil {
		return nil, err
	}
	t.rl = rl
	t.live = &liveOut{w: rl.Stdout()}
	io.WriteString(out, bracketedPasteOn)
	opened = true
	return t, nil
}

// filterRune notes an Alt-Enter (keyFilter puts altEnterRune before its
// Enter) and keeps it out of the line. The mark goes on to the editor as
// a bell, a key it ignores: a rune the filter drops makes the editor ask
// for one key more, and that standing request would have it read (and
// edit its line) past the Enter while no ReadLine waits.
func (t *Terminal) filterRune(r rune) (rune, bool) {
	if r == altEnterRune {
		t.altEnter.Store(true)
		return readline.CharBell, true
	}
	switch r {
	case '\r', '\n', readline.CharInterrupt, readline.CharDelete:
		// The key may end the line, and the editor then writes a line
		// break below the prompt: remove the live row above it first.
		t.live.SetLive("")
	}
	return r, true
}

// ReadLine reads one line: Ctrl-C is chat.ErrInterrupt, Ctrl-D on an
// empty line io.EOF; pasted line breaks come back as "\n".
func (t *Terminal) ReadLine() (chat.Line, error) {
	s, err := t.rl.Readline()
	t.live.leave()
	followUp := t.altEnter.Swap(false)
	switch {
	case errors.Is(err, readline.ErrInterrupt):
		return chat.Line{}, chat.ErrInterrupt
	case err != nil:
		return chat.Line{}, err
	}
	s = strings.TrimSuffix(strings.ReplaceAll(s, string(pastedNewline), "\n"), "\n")
	return chat.Line{Text: s, FollowUp: followUp}, nil
}

// SetPrompt changes the prompt and redraws it.
func (t *Terminal) SetPrompt(p string) {
	t.rl.SetPrompt(p)
	t.rl.Refresh()
}

// Out writes above the prompt line and redraws it; it keeps the chat's
// live row (chat.LiveWriter) between the two.
func (t *Terminal) Out() io.Writer { return t.live }

// Width is the terminal's width in columns.
func (t *Terminal) Width() int {
	if t.width != nil {
		return t.width()
	}
	return termWidth(t.out)
}

// Interrupt ends a waiting ReadLine (SIGTERM, SIGINT from elsewhere).
func (t *Terminal) Interrupt() { t.Close() }

// Close stops readline and restores the terminal; safe to call twice.
func (t *Terminal) Close() {
	t.once.Do(func() {
		io.WriteString(t.out, bracketedPasteOff)
		// readline's Close waits for its reader, which waits for input
		// that may never come (a hangup, a signal mid-run): end the read.
		_ = t.stdin.Close()
		_ = t.rl.Close()
		t.restore()
	})
}
