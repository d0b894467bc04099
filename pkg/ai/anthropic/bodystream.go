package anthropic

import (
	"bytes"
	"io"
	"net/http"
)

// A resumed session's body runs to tens of megabytes. Built whole, it is
// a second copy of the conversation, allocated fresh (its pages faulted
// in) only to be written to the connection once. A body of more than
// streamMin bytes is therefore written a message at a time: one pass
// encodes every message into a small reused buffer to learn the exact
// length (so the request keeps its Content-Length, and an encoding error
// still fails the request before anything is sent), and each attempt
// encodes them again as the connection reads. The bytes are those
// request.encode writes.

// streamMin is the size above which the body is streamed.
const streamMin = 1 << 20

// body is a request's body: whole when small, else streamed.
type body struct {
	r     *request
	whole []byte // the encoded body when it is small
	size  int64
}

// keepMin is the size up to which the measuring pass keeps the bytes it
// encodes. Beyond it, growing one slice towards streamMin by appends
// allocated several times streamMin (5 MB of garbage for a streamed body);
// a body between the two is encoded again into a buffer of its size.
const keepMin = 64 << 10

// newBody encodes r piece by piece, checking that it encodes and
// measuring it, and keeps the bytes when they are few.
func newBody(r *request) (*body, error) {
	s := &bodyReader{r: r}
	var whole []byte
	n := 0
	for !s.done {
		if err := s.fill(); err != nil {
			return nil, err
		}
		if n += len(s.buf); n <= keepMin {
			whole = append(whole, s.buf...)
		}
	}
	switch {
	case n > streamMin:
		whole = nil
	case n > keepMin:
		whole = make([]byte, 0, n)
		for s = (&bodyReader{r: r}); !s.done; {
			if err := s.fill(); err != nil {
				return nil, err
			}
			whole = append(whole, s.buf...)
		}
	}
	return &body{r: r, whole: whole, size: int64(n)}, nil
}

// reader returns a reader of the whole body from its start.
func (b *body) reader() io.Reader {
	if b.whole != nil {
		return bytes.NewReader(b.whole)
	}
	return &bodyReader{r: b.r}
}

// bodyReader writes the body a piece at a time: the head, each message,
// the tail.
type bodyReader struct {
	r    *request
	next int // the piece to encode next: 0 the head, 1+i message i, then the tail
	buf  []byte
	off  int // what of buf was read
	done bool
}

// Read fills p as far as the body goes: the transport writes what each
// Read returns to the connection as it is, and a message at a time was a
// system call for every 1.6 KB of a resumed session's body.
func (s *bodyReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if s.off >= len(s.buf) {
			if s.done {
				break
			}
			if err := s.fill(); err != nil {
				return n, err
			}
			continue
		}
		m := copy(p[n:], s.buf[s.off:])
		s.off += m
		n += m
	}
	if n == 0 && len(p) > 0 {
		return 0, io.EOF
	}
	return n, nil
}

// fill encodes the next piece into buf, reusing its storage.
func (s *bodyReader) fill() error {
	b, err := s.buf[:0], error(nil)
	switch i := s.next - 1; {
	case s.next == 0:
		b = s.r.appendHead(b)
	case i < len(s.r.Messages):
		b, err = s.r.appendMessage(b, i)
	default:
		b, err = s.r.appendTail(b)
		s.done = true
	}
	if err != nil {
		return err
	}
	s.next++
	s.buf, s.off = b, 0
	return nil
}

// request returns a POST of the body to url with its Content-Length, able
// to send it again (GetBody) as the transport may need.
func (b *body) request(url string) (*http.Request, error) {
	hreq, err := http.NewRequest(http.MethodPost, url, nil)
	if err != nil {
		return nil, err
	}
	hreq.Body, hreq.ContentLength = io.NopCloser(b.reader()), b.size
	hreq.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(b.reader()), nil }
	return hreq, nil
}
