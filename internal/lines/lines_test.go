package lines

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
)

// Lines within the bound come whole with their LF; a longer one, even
// one longer than the reader's buffer, is dropped and the next is read
// whole; a last line without its LF comes with io.EOF.
func TestRead(t *testing.T) {
	long := strings.Repeat("x", 100)
	br := bufio.NewReaderSize(strings.NewReader("ab\n"+long+"\n"+"cdefgh\n"+"12345678\n"+"tail"), 16)
	type rec struct {
		line string
		over bool
		eof  bool
	}
	want := []rec{{"ab\n", false, false}, {"", true, false}, {"cdefgh\n", false, false}, {"", true, false}, {"tail", false, true}}
	for i, w := range want {
		line, over, err := Read(br, 8)
		if err != nil && !errors.Is(err, io.EOF) {
			t.Fatalf("record %d: %v", i, err)
		}
		if string(line) != w.line || over != w.over || errors.Is(err, io.EOF) != w.eof {
			t.Fatalf("record %d: %q over %v err %v, want %+v", i, line, over, err, w)
		}
	}
	if line, over, err := Read(br, 8); line != nil || over || !errors.Is(err, io.EOF) {
		t.Fatalf("after the end: %q %v %v", line, over, err)
	}
}

// A line of exactly max bytes (its LF counted) is kept; one byte more is
// dropped.
func TestReadBound(t *testing.T) {
	br := bufio.NewReaderSize(strings.NewReader("1234567\n12345678\n"), 16)
	if line, over, _ := Read(br, 8); string(line) != "1234567\n" || over {
		t.Fatalf("%q over %v", line, over)
	}
	if line, over, _ := Read(br, 8); line != nil || !over {
		t.Fatalf("%q over %v", line, over)
	}
}

// An over-long line at the end without its LF is dropped with io.EOF.
func TestReadOverAtEnd(t *testing.T) {
	br := bufio.NewReaderSize(strings.NewReader(strings.Repeat("y", 40)), 16)
	if line, over, err := Read(br, 8); line != nil || !over || !errors.Is(err, io.EOF) {
		t.Fatalf("%q %v %v", line, over, err)
	}
}
