package cmd

import (
	"errors"

	"gopi/pkg/chat/term"
)

// chatWidth, when set, measures the chat's terminal in place of asking
// it (tests: a terminal that goes away).
var chatWidth func() int

// openTerminal hands the chat the terminal on sys's stdin and stdout,
// its history in historyFile; a terminal it cannot use is a usage error.
func openTerminal(sys *System, historyFile string) (*term.Terminal, error) {
	t, err := term.Open(term.Config{In: sys.Stdin, Out: sys.Stdout, HistoryFile: historyFile, Width: chatWidth})
	var setup *term.SetupError
	switch {
	case errors.Is(err, term.ErrNotTerminal):
		return nil, usageErr("gopi chat needs a terminal on stdin and stdout; use gopi run")
	case errors.As(err, &setup):
		return nil, usageErr("gopi chat: cannot set up the terminal: %v; use gopi run", setup.Err)
	}
	return t, err
}
