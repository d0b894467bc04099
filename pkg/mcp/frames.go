package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"

	"gopi/pkg/tools"
)

// maxFrame bounds one line a stdio server writes (the SDK's own default).
const maxFrame = 16 << 20

// frameEnd is how much of a line's start and end is kept to find the id
// of an answer that is dropped.
const frameEnd = 4 << 10

// maxNoise is how many ignored lines of one server are reported; the
// rest are ignored silently.
const maxNoise = 3

// frameReader hands a stdio server's stdout to the SDK one JSON line at a
// time. A line that is not JSON, or longer than maxFrame, would end the
// SDK's connection, and the server would look as if it had exited: such
// a line is dropped instead. When it was an answer whose id can still be
// read, the call gets an error answer that says what happened; otherwise
// note hears of it.
type frameReader struct {
	r    *bufio.Reader
	c    io.Closer
	max  int
	note func(string)

	pending []byte
	noise   int
}

func newFrameReader(r io.ReadCloser, max int, note func(string)) *frameReader {
	return &frameReader{r: bufio.NewReaderSize(r, 64<<10), c: r, max: max, note: note}
}

func (f *frameReader) Close() error { return f.c.Close() }

func (f *frameReader) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		line, err := f.next()
		if line != nil {
			f.pending = line
			break
		}
		if err != nil {
			return 0, err
		}
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

// next reads one line and returns what the SDK is to read of it (nil:
// nothing), with the read's error.
func (f *frameReader) next() ([]byte, error) {
	line, over, head, tail, err := f.readLine()
	if over > 0 {
		id := answerID(head, tail)
		what := fmt.Sprintf("an answer of more than %s (the limit of one message)", tools.FormatSize(f.max))
		return f.dropped(id, what, fmt.Sprintf("wrote a line of more than %s on stdout (ignored)", tools.FormatSize(f.max))), err
	}
	trimmed := bytes.TrimSpace(line)
	switch {
	case len(trimmed) == 0:
		return nil, err
	case json.Valid(trimmed):
		return append(trimmed, '\n'), err
	}
	id := answerID(trimmed[:min(len(trimmed), frameEnd)], trimmed[max(0, len(trimmed)-frameEnd):])
	return f.dropped(id, "an answer that is not valid JSON", fmt.Sprintf("wrote a line on stdout that is not JSON (ignored): %q", preview(trimmed))), err
}

// dropped is the error answer for id (what the server sent instead), or
// nil after a note when there is no id.
func (f *frameReader) dropped(id json.RawMessage, what, note string) []byte {
	if id != nil {
		msg, _ := json.Marshal("the server sent " + what)
		return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":%s}}`+"\n", id, msg)
	}
	f.noise++
	switch {
	case f.noise <= maxNoise:
		f.note(note)
	case f.noise == maxNoise+1:
		f.note("wrote more lines on stdout that are not messages: they are ignored without a word")
	}
	return nil
}

// readLine reads up to a newline. A line over f.max is not kept: over is
// its length, head and tail its first and last frameEnd bytes.
func (f *frameReader) readLine() (line []byte, over int, head, tail []byte, err error) {
	for {
		frag, e := f.r.ReadSlice('\n')
		switch {
		case over > 0:
			over += len(frag)
			tail = append(tail, frag...)
			if len(tail) > 2*frameEnd {
				tail = append(tail[:0], tail[len(tail)-frameEnd:]...)
			}
		case len(line)+len(frag) > f.max:
			over = len(line) + len(frag)
			head = append(line[:0:0], line...)
			head = append(head, frag...)
			tail = append([]byte(nil), head[max(0, len(head)-frameEnd):]...)
			head = head[:min(len(head), frameEnd)]
			line = nil
		default:
			line = append(line, frag...)
		}
		if e != bufio.ErrBufferFull {
			if over > 0 {
				tail = tail[max(0, len(tail)-frameEnd):]
			}
			return line, over, head, tail, e
		}
	}
}

// answerPatterns find the id of an answer from a line's start (the Go
// SDK writes {"jsonrpc":"2.0","id":…,"result":…}) or, for an answer
// that starts with its result or error, from its end (the TypeScript
// SDK's order: {"result":…,"jsonrpc":"2.0","id":…}).
var answerPatterns = sync.OnceValue(func() [3]*regexp.Regexp {
	const id = `(-?\d+|"(?:[^"\\]|\\.)*")`
	return [3]*regexp.Regexp{
		regexp.MustCompile(`^\s*\{\s*"jsonrpc"\s*:\s*"2\.0"\s*,\s*"id"\s*:\s*` + id + `\s*,\s*"(?:result|error)"`),
		regexp.MustCompile(`^\s*\{\s*"(?:result|error)"\s*:`),
		regexp.MustCompile(`"id"\s*:\s*` + id + `\s*\}\s*$`),
	}
})

// answerID is the id of the answer a dropped line was, nil when it does
// not look like one (a request or notification of the server's own, or
// no message at all).
func answerID(head, tail []byte) json.RawMessage {
	p := answerPatterns()
	if m := p[0].FindSubmatch(head); m != nil {
		return json.RawMessage(m[1])
	}
	if p[1].Match(head) {
		if m := p[2].FindSubmatch(tail); m != nil {
			return json.RawMessage(m[1])
		}
	}
	return nil
}

// preview is the start of a line, for a note.
func preview(b []byte) string {
	s := strings.ToValidUTF8(string(b[:min(len(b), 80)]), "\uFFFD")
	if len(b) > 80 {
		s += "…"
	}
	return s
}
