// Package sse reads a text/event-stream as the model APIs send it: events
// made of "event:", "data:" and "id:" fields, ended by a blank line.
//
// It follows the WHATWG parsing rules (comments and unknown fields are
// skipped, several data lines are joined with "\n", one leading space after
// the colon is dropped) with two choices for model streams: an event whose
// lines all arrived but whose closing blank line did not is still returned
// at the end of the stream, and a last line cut before its line end is
// never returned and makes Next report io.ErrUnexpectedEOF, so callers can
// tell a cut stream from a clean end. Lines end at "\n", "\r\n" or a lone
// "\r", and each is handed on as soon as its end arrives. Lines and events
// are bounded in size.
package sse

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
)

// DefaultMaxEventSize bounds one event (all its lines) unless the Reader
// is told otherwise.
const DefaultMaxEventSize = 16 << 20

// ErrEventTooLarge reports an event or line longer than the limit.
var ErrEventTooLarge = errors.New("sse: event too large")

// Event is one dispatched server-sent event.
type Event struct {
	Name string // the "event:" field; empty means "message"
	Data string // the "data:" lines joined with "\n"
	ID   string // the last "id:" field seen, if any
}

// Reader reads events from a stream. It is not safe for concurrent use.
type Reader struct {
	r       *bufio.Reader
	max     int
	lastID  string
	afterCR bool // the last line ended with "\r": a "\n" next belongs to it
}

// NewReader returns a Reader with the default size limit.
func NewReader(r io.Reader) *Reader { return NewReaderSize(r, DefaultMaxEventSize) }

// NewReaderSize returns a Reader whose events may be at most max bytes
// (the bytes of their lines, line ends not counted); max <= 0 means the
// default.
func NewReaderSize(r io.Reader, max int) *Reader {
	if max <= 0 {
		max = DefaultMaxEventSize
	}
	return &Reader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// Next returns the next event. At a clean end of the stream it returns
// io.EOF; when the stream ends inside a line it returns
// io.ErrUnexpectedEOF; read errors of the underlying reader are returned
// as they are (wrapped).
func (r *Reader) Next() (Event, error) {
	var (
		ev      Event
		data    bytes.Buffer
		hasData bool
		size    int
	)
	for {
		line, err := r.line()
		if err != nil {
			if errors.Is(err, io.EOF) && hasData {
				ev.Data, ev.ID = data.String(), r.lastID
				return ev, nil
			}
			return Event{}, err
		}
		if line == "" {
			if !hasData {
				ev = Event{}
				size = 0
				continue
			}
			ev.Data, ev.ID = data.String(), r.lastID
			return ev, nil
		}
		size += len(line)
		if size > r.max {
			return Event{}, ErrEventTooLarge
		}
		name, value := field(line)
		switch name {
		case "event":
			ev.Name = value
		case "data":
			if hasData {
				data.WriteByte('\n')
			}
			data.WriteString(value)
			hasData = true
		case "id":
			if !strings.ContainsRune(value, 0) {
				r.lastID = value
			}
		}
	}
}

// field splits a line into its field name and value; a comment line gives
// an empty name.
func field(line string) (string, string) {
	if line[0] == ':' {
		return "", ""
	}
	i := strings.IndexByte(line, ':')
	if i < 0 {
		return line, ""
	}
	value := line[i+1:]
	if len(value) > 0 && value[0] == ' ' {
		value = value[1:]
	}
	return line[:i], value
}

// line returns the next line without its terminator. Lines end at "\n",
// "\r\n" or a lone "\r": a line is returned as soon as its terminator
// arrives, and a "\n" right after a "\r" is the end of the same line.
func (r *Reader) line() (string, error) {
	var long []byte // the line so far, when it spans several buffers
	for {
		buf, err := r.buffered()
		if err != nil {
			switch {
			case !errors.Is(err, io.EOF):
				return "", fmt.Errorf("sse: read: %w", err)
			case len(long) > 0:
				return "", io.ErrUnexpectedEOF
			}
			return "", io.EOF
		}
		if r.afterCR {
			r.afterCR = false
			if buf[0] == '\n' {
				_, _ = r.r.Discard(1)
				continue
			}
		}
		end := lineEnd(buf)
		if end < 0 {
			if len(long)+len(buf) > r.max {
				return "", ErrEventTooLarge
			}
			long = append(long, buf...)
			_, _ = r.r.Discard(len(buf))
			continue
		}
		if len(long)+end > r.max {
			return "", ErrEventTooLarge
		}
		line := string(buf[:end])
		if len(long) > 0 {
			line = string(append(long, buf[:end]...))
		}
		r.afterCR = buf[end] == '\r'
		_, _ = r.r.Discard(end + 1)
		return line, nil
	}
}

// buffered returns the buffered bytes, reading when there are none.
func (r *Reader) buffered() ([]byte, error) {
	if r.r.Buffered() == 0 {
		if _, err := r.r.Peek(1); err != nil {
			return nil, err
		}
	}
	return r.r.Peek(r.r.Buffered())
}

// lineEnd is the index of the first "\r" or "\n" in b, or -1.
func lineEnd(b []byte) int {
	lf := bytes.IndexByte(b, '\n')
	before := b
	if lf >= 0 {
		before = b[:lf]
	}
	if cr := bytes.IndexByte(before, '\r'); cr >= 0 {
		return cr
	}
	return lf
}
