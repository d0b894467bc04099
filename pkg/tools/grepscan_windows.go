package tools

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
)

// file searches one file. Unreadable files and devices are skipped, as rg
// does, and so are binary files (a NUL in the first block).
func (w *grepWorker) file(ctx context.Context, abs, shown string) fileResult {
	f, st, err := openRegular(abs)
	if err != nil {
		return fileResult{}
	}
	defer f.Close()
	if st.Size() > grepWholeFile {
		return w.stream(ctx, f, shown)
	}
	buf, err := w.readAll(f, int(st.Size()))
	if errors.Is(err, errTooBig) {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return fileResult{}
		}
		return w.stream(ctx, f, shown)
	}
	if err != nil || bytes.IndexByte(buf[:min(len(buf), sniffBytes)], 0) >= 0 {
		return fileResult{}
	}
	if err := w.findHits(ctx, buf); err != nil {
		return fileResult{err: err}
	}
	res := w.render(buf, shown)
	if cap(w.buf) > grepKeepBuf {
		w.buf = nil
	}
	return res
}

// readAll reads the file to its end into the worker's buffer.
func (w *grepWorker) readAll(f *os.File, size int) ([]byte, error) {
	if cap(w.buf) < size+512 {
		w.buf = make([]byte, 0, size+512)
	}
	buf := w.buf[:0]
	for {
		if len(buf) == cap(buf) {
			if len(buf) > grepWholeFile {
				return nil, errTooBig
			}
			buf = append(buf, 0)[:len(buf)]
			w.buf = buf
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		switch {
		case err == io.EOF:
			return buf, nil
		case err != nil:
			return nil, err
		}
	}
}
