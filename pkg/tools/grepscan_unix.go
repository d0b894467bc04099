//go:build unix

package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"syscall"
)

// file searches one file. Unreadable files, pipes and devices are skipped,
// as rg does, and so are binary files (a NUL in the first block).
func (w *grepWorker) file(ctx context.Context, abs, shown string) fileResult {
	fd, size, err := openSearched(abs)
	if err != nil {
		return fileResult{}
	}
	defer syscall.Close(fd)
	if size > grepWholeFile {
		return w.stream(ctx, fdReader(fd), shown)
	}
	buf, err := w.readAll(fd, int(size))
	if errors.Is(err, errTooBig) {
		if _, err := syscall.Seek(fd, 0, io.SeekStart); err != nil {
			return fileResult{}
		}
		return w.stream(ctx, fdReader(fd), shown)
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
func (w *grepWorker) readAll(fd, size int) ([]byte, error) {
	if cap(w.buf) < size+512 {
		w.buf = make([]byte, 0, size+512) // room to see the end without growing
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
		want := cap(buf) - len(buf)
		n, err := fdReader(fd).Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		switch {
		case err == io.EOF:
			return buf, nil
		case err != nil:
			return nil, err
		case n < want && len(buf) >= size:
			return buf, nil // a short read of a regular file is its end: no read to hear it again
		}
	}
}

// openSearched opens a file the walk (or a stat) found regular, as
// openRegular does: without waiting on a pipe or terminal swapped in since,
// refusing what the descriptor shows is not a regular file. It returns the
// descriptor and the file's size.
func openSearched(path string) (int, int64, error) {
	fd, err := openNonblock(path)
	if err != nil {
		return -1, 0, err
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		syscall.Close(fd)
		return -1, 0, err
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		syscall.Close(fd)
		return -1, 0, &notRegularError{mode: modeOf(uint32(st.Mode))}
	}
	if err := clearNonblock(fd); err != nil {
		syscall.Close(fd)
		return -1, 0, err
	}
	return fd, st.Size, nil
}

// fdReader reads a descriptor without an *os.File around it.
type fdReader int

func (r fdReader) Read(p []byte) (int, error) {
	for {
		n, err := syscall.Read(int(r), p)
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case err != nil:
			return 0, err
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

// clearNonblock takes O_NONBLOCK off a descriptor openNonblock opened: its
// other status flags are known, so one fcntl does what
// syscall.SetNonblock does with two.
func clearNonblock(fd int) error {
	for {
		_, _, e := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_SETFL, 0)
		switch e {
		case 0:
			return nil
		case syscall.EINTR:
			continue
		}
		return fmt.Errorf("clear O_NONBLOCK: %w", e)
	}
}
