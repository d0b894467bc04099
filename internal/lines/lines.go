// Package lines reads newline-ended records of bounded size, as the rpc
// and ACP servers read their input: a record holds at most max bytes; a
// longer one is read to its end and dropped, never held in memory whole.
package lines

import (
	"bufio"
	"errors"
)

// Read reads up to and with the next LF from br, keeping at most max
// bytes of it. A longer line is read to its end and dropped: over is
// true and line nil. err is the last read's (io.EOF for a last line
// without its LF, or at the end).
func Read(br *bufio.Reader, max int) (line []byte, over bool, err error) {
	for {
		frag, err := br.ReadSlice('\n')
		if !over {
			if len(line)+len(frag) > max {
				line, over = nil, true
			} else {
				line = append(line, frag...)
			}
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, over, err
		}
	}
}
