package interrupt

import (
	"os"
	"testing"
)

// A write to a pipe whose reader is gone is the broken stdout that ends a
// run (Stdout), as EPIPE does on Unix.
func TestWindowsBrokenPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	r.Close()
	_, err = w.Write([]byte("x"))
	if err == nil || !IsBrokenPipe(err) {
		t.Fatalf("write to a pipe without reader: %v, not a broken pipe", err)
	}
	gone := make(chan struct{})
	s := NewStdout(w, func() { close(gone) })
	_, _ = s.Write([]byte(`{"type":"text"}` + "\n"))
	if n, err := s.Write([]byte("more\n")); n != 5 || err != nil {
		t.Errorf("a write after the pipe broke: %d, %v; want it swallowed", n, err)
	}
	select {
	case <-gone:
	default:
		t.Fatal("Stdout did not report the broken pipe")
	}
}
