//go:build unix

package term

import (
	"os"

	"github.com/chzyer/readline"
)

// rawTerminal puts the terminal in raw mode (Ctrl-C is a key, never a
// signal); restore gives it its mode back. A Unix terminal speaks the VT
// sequences the line editor reads and writes already.
func rawTerminal(in, _ *os.File) (restore func(), err error) {
	fd := int(in.Fd())
	state, err := readline.MakeRaw(fd)
	if err != nil {
		return nil, err
	}
	return func() { _ = readline.Restore(fd, state) }, nil
}

// termWidth is the terminal's width in columns.
func termWidth(*os.File) int { return readline.GetScreenWidth() }
