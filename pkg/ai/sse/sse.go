// Package sse reads a text/event-stream as the model APIs send it: events
// made of "event:", "data:" and "id:" fields, ended by a blank line.
//
// It follows the WHATWG parsing rules (comments and unknown fields are
// skipped, several data lines are joined with "\n", one leading space after
// the colon is dropped) with two choices for model streams: an event whose
// lines all arrived but whose closing blank line did not is still returned
// at the end of the stream, and a last line cut before its newline is never
// returned and makes Next report io.ErrUnexpectedEOF, so callers can tell a
// cut stream from a clean end. Lines and events are bounded in size.
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
	pending []string // lines split off a line that held lone CRs
}

// NewReader returns a Reader with the default size limit.
func NewReader(r io.Reader) *Reader { return NewReaderSize(r, DefaultMaxEventSize) }

// NewReaderSize returns a Reader whose events may be at most max bytes.
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
// "\r\n" or a lone "\r".
func (r *Reader) line() (string, error) {
	if len(r.pending) > 0 {
		l := r.pending[0]
		r.pending = r.pending[1:]
		return l, nil
	}
	raw, err := r.readRaw()
	if err != nil {
		return "", err
	}
	raw = bytes.TrimSuffix(raw, []byte("\n"))
	raw = bytes.TrimSuffix(raw, []byte("\r"))
	if bytes.IndexByte(raw, '\r') < 0 {
		return string(raw), nil
	}
	parts := bytes.Split(raw, []byte("\r"))
	for _, p := range parts[1:] {
		r.pending = append(r.pending, string(p))
	}
	return string(parts[0]), nil
}

// readRaw reads up to and including the next "\n", bounded by the limit.
func (r *Reader) readRaw() ([]byte, error) {
	var buf []byte
	for {
		chunk, err := r.r.ReadSlice('\n')
		if len(buf)+len(chunk) > r.max {
			return nil, ErrEventTooLarge
		}
		buf = append(buf, chunk...)
		switch {
		case err == nil:
			return buf, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if len(buf) > 0 {
				return nil, io.ErrUnexpectedEOF
			}
			return nil, io.EOF
		default:
			return nil, fmt.Errorf("sse: read: %w", err)
		}
	}
}
