package session

import (
	"bytes"
	"errors"
	"gopi/internal/pijson"
	"io"
	"runtime"
	"slices"
	"sync"
)

// The entries after the header are read in chunks of whole lines. Chunks
// are decoded on GOMAXPROCS goroutines and applied in file order, so
// warnings, order and the torn tail are as a line-by-line read gives them.
// A file whose entries fit in one chunk is decoded on the calling goroutine.

// chunkSize is the size of a chunk's buffer; a longer line grows it. Tests
// make it small.
var chunkSize = 256 << 10

// chunk is a run of whole lines of the file (the last one may lack its
// newline only at the end of the file) and, once decoded, its lines.
type chunk struct {
	buf   []byte // the buffer data is read into; reused
	data  []byte
	off   int64 // file offset of data[0]
	lines []decodedLine
	sc    pijson.Scratch // decoding's working memory, reused
	done  chan struct{}  // a worker decoded the chunk
	panic any            // what a worker's decode panicked with
}

// decode splits the chunk into lines and decodes them.
func (c *chunk) decode() {
	c.lines = c.lines[:0]
	for start := 0; start < len(c.data); {
		end := len(c.data)
		if i := bytes.IndexByte(c.data[start:], '\n'); i >= 0 {
			end = start + i + 1
		}
		c.lines = append(c.lines, decodeLine(c.data[start:end], start, &c.sc))
		start = end
	}
}

// chunkReader cuts what follows the header into chunks.
type chunkReader struct {
	r     io.Reader
	carry []byte // a partial line read with the previous chunk
	off   int64  // file offset after the bytes read
	eof   bool
}

// fill reads the next chunk into c: the carried partial line, then as much
// as fits, keeping a partial last line for the next chunk. At the end of
// the file every remaining byte is in the chunk and cr.eof is set.
func (cr *chunkReader) fill(c *chunk) error {
	if len(c.buf) < chunkSize || len(c.buf) < 2*len(cr.carry) {
		// A long partial line read into a grown buffer needs room too.
		c.buf = make([]byte, max(chunkSize, 2*len(cr.carry)))
	}
	c.off = cr.off - int64(len(cr.carry))
	n := copy(c.buf, cr.carry)
	for {
		m, err := cr.read(c.buf[n:])
		n += m
		if err != nil {
			return err
		}
		if cr.eof {
			c.data, cr.carry = c.buf[:n], nil
			return nil
		}
		if i := bytes.LastIndexByte(c.buf[:n], '\n'); i >= 0 {
			c.data, cr.carry = c.buf[:i+1], c.buf[i+1:n]
			return nil
		}
		// One line longer than the buffer: grow it.
		c.buf = slices.Grow(c.buf[:n], len(c.buf))
		c.buf = c.buf[:cap(c.buf)]
	}
}

// read fills p, stopping early only at the end of the file; any other
// error is returned as it comes, as a line-by-line read returns it.
func (cr *chunkReader) read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		m, err := cr.r.Read(p[n:])
		n += m
		cr.off += int64(m)
		if errors.Is(err, io.EOF) {
			cr.eof = true
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// entryReader applies decoded chunks to a File in order. The entries go
// to one slice whose capacity is estimated from the first chunk and the
// file's size (when known): appending 312-byte entries one by one to a
// slice that grows as it goes allocated five times their size. A file
// whose first lines are much shorter than the rest is over-estimated; the
// entries are then copied to a slice of their size once read.
type entryReader struct {
	f      *File
	lineNo int   // number of the last line applied
	size   int64 // bytes after the header, 0 when unknown
	out    []Entry
}

func (er *entryReader) apply(c *chunk) {
	if c.panic != nil {
		panic(c.panic)
	}
	if er.out == nil {
		n := len(c.lines)
		if er.size > int64(len(c.data)) && len(c.data) > 0 {
			n = int(float64(n)*float64(er.size)/float64(len(c.data))*1.05) + 1
		}
		er.out = make([]Entry, 0, n+appendRoom)
	}
	for i := range c.lines {
		er.lineNo++
		d := &c.lines[i]
		if er.f.addDecoded(d, er.lineNo, c.off+int64(d.start)) {
			er.out = append(er.out, d.entry)
		}
		*d = decodedLine{}
	}
}

// readEntries reads the lines after the header from r; lineNo and off are
// the header's line number and the offset after it, size the file's size
// (0 when unknown).
func (f *File) readEntries(r io.Reader, lineNo int, off, size int64) error {
	cr := &chunkReader{r: r, off: off}
	er := &entryReader{f: f, lineNo: lineNo, size: max(size-off, 0)}
	first := &chunk{done: make(chan struct{}, 1)}
	if err := cr.fill(first); err != nil {
		return err
	}
	if cr.eof {
		first.decode()
		er.apply(first)
	} else if err := er.readParallel(cr, first); err != nil {
		return err
	}
	if len(er.out) > 0 {
		f.Entries = er.out
		if cap(er.out) > 2*len(er.out)+appendRoom {
			// The first chunk's lines were much shorter than the rest.
			f.Entries = append(make([]Entry, 0, len(er.out)+appendRoom), er.out...)
		}
	}
	f.Size = cr.off
	return nil
}

// readParallel decodes first and the chunks cr reads after it on
// GOMAXPROCS workers, applying them in order.
func (er *entryReader) readParallel(cr *chunkReader, first *chunk) error {
	workers := runtime.GOMAXPROCS(0)
	jobs := make(chan *chunk, 2*workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for c := range jobs {
				decodeChunk(c)
			}
		})
	}
	defer func() {
		close(jobs)
		wg.Wait()
	}()
	// A ring of chunks in flight; the oldest is applied and reused.
	ring := make([]*chunk, 2*workers)
	ring[0] = first
	jobs <- first
	for n := 1; ; n++ {
		c := ring[n%len(ring)]
		if c != nil {
			<-c.done
			er.apply(c)
		} else {
			c = &chunk{done: make(chan struct{}, 1)}
			ring[n%len(ring)] = c
		}
		if cr.eof {
			for i := 1; i < len(ring); i++ {
				if c := ring[(n+i)%len(ring)]; c != nil {
					<-c.done
					er.apply(c)
				}
			}
			return nil
		}
		if err := cr.fill(c); err != nil {
			return err
		}
		jobs <- c
	}
}

// decodeChunk decodes c on a worker and signals it done, passing a panic
// on to be raised on the reading goroutine.
func decodeChunk(c *chunk) {
	defer func() {
		c.panic = recover()
		c.done <- struct{}{}
	}()
	c.decode()
}
