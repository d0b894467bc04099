package term

import (
	"io"
	"sync"
)

// eraseLiveRow moves up to the live row and clears it. Readline's writer
// first puts the cursor at the start of the prompt's first row, which is
// just below the live row; between two reads the cursor is at the start
// of the row below the last output, the live row's too.
const eraseLiveRow = "\x1b[1A\r\x1b[2K"

// liveOut is the chat's output (chat.LiveWriter): lines go above
// readline's prompt, and one live row (the answer's line still arriving,
// or a spinner) stays between them and the prompt, drawn again in place.
// The live row is one terminal row: the chat keeps it narrower than the
// terminal.
type liveOut struct {
	mu   sync.Mutex
	w    io.Writer // readline's: clears the prompt, writes, draws the prompt again
	live string
}

// Write writes whole lines above the live row.
func (o *liveOut) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.live == "" {
		return o.w.Write(p)
	}
	buf := make([]byte, 0, len(eraseLiveRow)+len(p)+len(o.live)+1)
	buf = append(append(append(append(buf, eraseLiveRow...), p...), o.live...), '\n')
	if _, err := o.w.Write(buf); err != nil {
		return 0, err
	}
	return len(p), nil
}

// SetLive draws text in the live row in place of what was there; ""
// removes the row.
func (o *liveOut) SetLive(text string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if text == o.live {
		return
	}
	var buf []byte
	if o.live != "" {
		buf = append(buf, eraseLiveRow...)
	}
	if text != "" {
		buf = append(append(buf, text...), '\n')
	}
	o.live = text
	_, _ = o.w.Write(buf)
}

// leave forgets the live row without erasing it: the line editor moved
// the cursor below a finished line, so the row is no longer the one
// above it. (The chat removes the row before a key ends a line; this
// keeps a row drawn in between from being erased in the wrong place.)
func (o *liveOut) leave() {
	o.mu.Lock()
	o.live = ""
	o.mu.Unlock()
}
