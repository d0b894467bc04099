package term

import (
	"os"

	"golang.org/x/sys/windows"
)

// consoleAPI is what the chat needs of the Windows console: tests put a
// fake in its place, since Wine gives its programs no console.
type consoleAPI interface {
	getMode(h windows.Handle) (uint32, error)
	setMode(h windows.Handle, mode uint32) error
	// width is the screen buffer's width in columns (where lines wrap).
	width(h windows.Handle) (int, error)
}

// console is the console the chat sets up.
var console consoleAPI = winConsoleAPI{}

// Input modes the chat clears: line input, echo and Ctrl-C as a signal
// (the console's cooked mode; Ctrl-C is a key of the line editor).
const cookedInput = windows.ENABLE_LINE_INPUT | windows.ENABLE_ECHO_INPUT | windows.ENABLE_PROCESSED_INPUT

// rawTerminal makes the console speak as a Unix terminal in raw mode:
// keys (arrows, Home, Delete, Alt, bracketed paste) arrive on stdin as
// the VT sequences the line editor reads, one at a time, and the VT
// sequences it writes to stdout are interpreted. restore gives both
// their modes back. A console without VT input (before Windows 10)
// still gets raw input: typing works, arrows do not.
func rawTerminal(in, out *os.File) (restore func(), err error) {
	hin, hout := windows.Handle(in.Fd()), windows.Handle(out.Fd())
	inMode, err := console.getMode(hin)
	if err != nil {
		return nil, err
	}
	raw := inMode &^ cookedInput
	if console.setMode(hin, raw|windows.ENABLE_VIRTUAL_TERMINAL_INPUT) != nil {
		if err := console.setMode(hin, raw); err != nil {
			return nil, err
		}
	}
	outMode, outErr := console.getMode(hout)
	if outErr == nil {
		_ = console.setMode(hout, outMode|windows.ENABLE_PROCESSED_OUTPUT|windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING)
	}
	return func() {
		_ = console.setMode(hin, inMode)
		if outErr == nil {
			_ = console.setMode(hout, outMode)
		}
	}, nil
}

// termWidth is the console's width in columns; 80 when out is no console.
func termWidth(out *os.File) int {
	if w, err := console.width(windows.Handle(out.Fd())); err == nil && w > 0 {
		return w
	}
	return 80
}

// winConsoleAPI is the real console.
type winConsoleAPI struct{}

func (winConsoleAPI) getMode(h windows.Handle) (uint32, error) {
	var m uint32
	err := windows.GetConsoleMode(h, &m)
	return m, err
}

func (winConsoleAPI) setMode(h windows.Handle, mode uint32) error {
	return windows.SetConsoleMode(h, mode)
}

func (winConsoleAPI) width(h windows.Handle) (int, error) {
	var info windows.ConsoleScreenBufferInfo
	if err := windows.GetConsoleScreenBufferInfo(h, &info); err != nil {
		return 0, err
	}
	return int(info.Size.X), nil
}
