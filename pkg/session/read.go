package session

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"gopi/internal/pijson"
	"io"
	"io/fs"
)

// Warning kinds.
const (
	WarnTornLine    = "torn_line"    // the last line is incomplete; ignored
	WarnCorruptLine = "corrupt_line" // a line in the middle is not an entry; skipped
	WarnGap         = "gap"          // a path reaches an entry that was lost
	WarnDuplicateID = "duplicate_id" // two entries share an id; the first one counts
	WarnCycle       = "cycle"        // a parent chain loops
	WarnMigrated    = "migrated"     // an old format version was migrated in memory
)

// Warning is a problem that did not stop a read or a path walk. Warnings
// are returned, never printed: the caller decides where they go.
type Warning struct {
	Kind    string
	File    string
	Line    int   // 1-based; 0 when not about a line
	Offset  int64 // byte offset of the line; -1 when not about a line
	EntryID string
	Message string
}

func (w Warning) String() string {
	switch {
	case w.Line > 0:
		return fmt.Sprintf("%s:%d: %s", w.File, w.Line, w.Message)
	case w.File != "":
		return fmt.Sprintf("%s: %s", w.File, w.Message)
	}
	return w.Message
}

// File is a session file as read: its header, its entries in file order
// (migrated to the current version in memory) and what went wrong on the way.
type File struct {
	Path     string
	Header   Header
	Version  int // the version found on disk, before migration
	Entries  []Entry
	Warnings []Warning

	// Size is the number of bytes read, torn tail included.
	Size int64
	// NeedsNewline is true when the file does not end with "\n": the next
	// append must begin with one so it never fuses with the torn tail.
	NeedsNewline bool
}

// ReadFile reads a session file without taking its lock. A missing or
// invalid header is an error wrapping ErrInvalidHeader; bad lines after it
// are warnings. A folder, a FIFO or a device is ErrNotRegular, found
// without blocking on it. The file is never modified.
func ReadFile(path string) (*File, error) {
	f, _, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, path)
}

// maxHeaderLine bounds line 1: a header is a few hundred bytes, and a file
// that is not a session (or /dev/zero) must not be read whole to find out.
const maxHeaderLine = 1 << 20

// Read reads a session from r; name is used in warnings and errors.
func Read(r io.Reader, name string) (*File, error) {
	rd := lineReader{br: bufio.NewReaderSize(r, 64<<10)}
	out := &File{Path: name}
	if err := out.readHeader(&rd); err != nil {
		return nil, err
	}
	var size int64
	if st, ok := r.(interface{ Stat() (fs.FileInfo, error) }); ok {
		if fi, err := st.Stat(); err == nil && fi.Mode().IsRegular() {
			size = fi.Size()
		}
	}
	if err := out.readEntries(rd.br, rd.n, rd.off, size); err != nil {
		return nil, fmt.Errorf("read session %s: %w", name, err)
	}
	out.migrate()
	return out, nil
}

func (f *File) readHeader(rd *lineReader) error {
	line, _, err := rd.nextMax(maxHeaderLine)
	if errors.Is(err, errLineTooLong) {
		return fmt.Errorf("session %s:1: %w: the first line is longer than %d bytes", f.Path, ErrInvalidHeader, maxHeaderLine)
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("read session %s: %w", f.Path, err)
	}
	if len(bytes.TrimSpace(line)) == 0 {
		return fmt.Errorf("session %s: %w: the file is empty", f.Path, ErrInvalidHeader)
	}
	h, herr := decodeHeader(line)
	if herr != nil {
		return fmt.Errorf("session %s:1: %w: %v", f.Path, ErrInvalidHeader, herr)
	}
	f.Header = h
	f.Version = max(h.Version, 1)
	f.NeedsNewline = line[len(line)-1] != '\n'
	f.Size = rd.off
	return nil
}

// decodedLine is one entry line after decoding, which may run on another
// goroutine; addDecoded then applies it in file order.
type decodedLine struct {
	start    int  // offset of the line in its chunk
	complete bool // the line ends with "\n"
	blank    bool
	entry    Entry
	err      error
}

func decodeLine(line []byte, start int, sc *pijson.Scratch) decodedLine {
	d := decodedLine{start: start, complete: line[len(line)-1] == '\n'}
	if len(bytes.TrimSpace(line)) == 0 {
		d.blank = true
		return d
	}
	d.entry, d.err = decodeEntry(line, sc)
	return d
}

// addDecoded applies the rules to one decoded line and says whether its
// entry is kept. Only the final bytes of a file can lack a newline: a last
// line without one that holds a whole entry is kept, as pi keeps it (the
// next append writes the newline first, and every later read sees the same
// entry); one that does not is the torn tail of a write, reported and
// ignored.
func (f *File) addDecoded(d *decodedLine, lineNo int, off int64) bool {
	f.NeedsNewline = !d.complete
	if d.blank {
		return false
	}
	e, err := d.entry, d.err
	if err == nil && e.ID == "" && f.Version >= 2 {
		err = errors.New("entry has no id")
	}
	switch {
	case !d.complete && err != nil:
		f.warn(WarnTornLine, lineNo, off, fmt.Sprintf("torn last line, ignored: %v", err))
	case err != nil:
		f.warn(WarnCorruptLine, lineNo, off, fmt.Sprintf("corrupt line skipped: %v", err))
	default:
		return true
	}
	return false
}

func (f *File) warn(kind string, line int, off int64, msg string) {
	f.Warnings = append(f.Warnings, Warning{Kind: kind, File: f.Path, Line: line, Offset: off, Message: msg})
}

// lineReader returns whole lines, with their newline (the header; the
// entries are read in chunks, see readEntries).
type lineReader struct {
	br  *bufio.Reader
	buf []byte
	n   int   // number of the line last returned, from 1
	off int64 // offset after the line last returned
}

var errLineTooLong = errors.New("line too long")

// nextMax reads one line; with max >= 0 a longer line is errLineTooLong.
func (r *lineReader) nextMax(max int) ([]byte, int64, error) {
	start := r.off
	line, err := r.br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		r.buf = append(r.buf[:0], line...)
		for errors.Is(err, bufio.ErrBufferFull) {
			if max >= 0 && len(r.buf) > max {
				return nil, start, errLineTooLong
			}
			line, err = r.br.ReadSlice('\n')
			r.buf = append(r.buf, line...)
		}
		line = r.buf
	}
	r.n++
	r.off += int64(len(line))
	return line, start, err
}
