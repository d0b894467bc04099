package anthropic

import (
	"bytes"
	"io"
	"net/http"
)

// A resumed session's body runs to tens of megabytes. Built whole, it is
// a second copy of the conversation, allocated fresh (its pages faulted
// in) only to be written to the connection once. A body of more than
// streamMin bytes is therefore written a message at a time as the
// connection reads it; it is measured first without being written
// (bodysize.go), so that the request keeps its Content-Length and an
// encoding error still fails the request before anything is sent. The
// bytes are those request.encode writes.

// streamMin is the size above which the body is streamed.
const streamMin = 1 << 20

// body is a request's body: whole when small, else streamed.
type body struct {
	r     *request
	whole []byte // the encoded body when it is small
	size  int64
}

// newBody measures r, checking that it encodes, and encodes it whole
// when it is small.
func newBody(r *request) (*body, error) {
	n, err := r.measure()
	if err != nil {
		return nil, err
	}
	if n > streamMin {
		return &body{r: r, size: int64(n)}, nil
	}
	whole, err := r.appendJSON(make([]byte, 0, n))
	if err != nil {
		return nil, err
	}
	return &body{r: r, whole: whole, size: int64(len(whole))}, nil
}

// measure returns the length of the body encode writes, or its error.
func (r *request) measure() (int, error) {
	buf := r.appendHead(nil)
	n := len(buf)
	for i := range r.Messages {
		m, err := r.messageLen(i, &buf)
		if err != nil {
			return 0, err
		}
		n += m
	}
	tail, err := r.appendTail(buf[:0])
	if err != nil {
		return 0, err
	}
	return n + len(tail), nil
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
