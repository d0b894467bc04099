package cmd

import (
	"errors"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/chzyer/readline"

	"gopi/pkg/mode"
)

// Bracketed paste: the terminal marks pasted text, so its line breaks
// stay in the input instead of sending each line.
const (
	bracketedPasteOn  = "\x1b[?2004h"
	bracketedPasteOff = "\x1b[?2004l"
)

// chatTerminal is the chat's line editor: readline over a raw terminal,
// with Alt-Enter and pasted line breaks recognised by keyFilter.
type chatTerminal struct {
	rl       *readline.Instance
	live     *liveOut  // the chat's output, above the prompt
	stdin    io.Closer // what readline reads; its Close does not reach it
	out      *os.File
	altEnter atomic.Bool
	// restore gives the terminal back the modes rawTerminal changed.
	restore func()
	once    sync.Once
}

// openTerminal puts the terminal in raw mode for the whole chat (so that
// Ctrl-C is a key, never a signal, even between two prompts) and starts
// readline with its history in historyFile.
func openTerminal(sys *System, historyFile string) (*chatTerminal, error) {
	in, ok1 := sys.Stdin.(*os.File)
	out, ok2 := sys.Stdout.(*os.File)
	if !ok1 || !ok2 {
		return nil, usageErr("gopi chat needs a terminal on stdin and stdout; use gopi run")
	}
	t := &chatTerminal{out: out}
	restore, err := rawTerminal(in, out)
	if err != nil {
		return nil, usageErr("gopi chat: cannot set up the terminal: %v; use gopi run", err)
	}
	t.restore = restore
	// Whatever goes wrong before the terminal is handed over, an error
	// or a panic, the terminal gets its modes back.
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
		Prompt: "› ", HistoryFile: historyFile, HistoryLimit: 1000,
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
// Enter) and keeps it out of the line.
func (t *chatTerminal) filterRune(r rune) (rune, bool) {
	if r == altEnterRune {
		t.altEnter.Store(true)
		return r, false
	}
	switch r {
	case '\r', '\n', readline.CharInterrupt, readline.CharDelete:
		// The key may end the line, and the editor then writes a line
		// break below the prompt: remove the live row above it first.
		t.live.SetLive("")
	}
	return r, true
}

// ReadLine reads one line: Ctrl-C is mode.ErrInterrupt, Ctrl-D on an
// empty line io.EOF; pasted line breaks come back as "\n".
func (t *chatTerminal) ReadLine() (mode.Line, error) {
	s, err := t.rl.Readline()
	t.live.leave()
	followUp := t.altEnter.Swap(false)
	switch {
	case errors.Is(err, readline.ErrInterrupt):
		return mode.Line{}, mode.ErrInterrupt
	case err != nil:
		return mode.Line{}, err
	}
	s = strings.TrimSuffix(strings.ReplaceAll(s, string(pastedNewline), "\n"), "\n")
	return mode.Line{Text: s, FollowUp: followUp}, nil
}

// SetPrompt changes the prompt and redraws it.
func (t *chatTerminal) SetPrompt(p string) {
	t.rl.SetPrompt(p)
	t.rl.Refresh()
}

// Out writes above the prompt line and redraws it; it keeps the chat's
// live row (mode.LiveWriter) between the two.
func (t *chatTerminal) Out() io.Writer { return t.live }

// Width is the terminal's width in columns.
func (t *chatTerminal) Width() int { return termWidth(t.out) }

// Interrupt ends a waiting ReadLine (SIGTERM, SIGINT from elsewhere).
func (t *chatTerminal) Interrupt() { t.Close() }

// Close stops readline and restores the terminal; safe to call twice.
func (t *chatTerminal) Close() {
	t.once.Do(func() {
		io.WriteString(t.out, bracketedPasteOff)
		// readline's Close waits for its reader, which waits for input
		// that may never come (a hangup, a signal mid-run): end the read.
		_ = t.stdin.Close()
		_ = t.rl.Close()
		t.restore()
	})
}
