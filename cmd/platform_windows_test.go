package cmd

import (
	"os"
	"testing"
)

// A write to a pipe whose reader is gone is the broken stdout that ends a
// run (exitWriter), as EPIPE does on Unix.
func TestWindowsBrokenPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	r.Close()
	_, err = w.Write([]byte("x"))
	if err == nil || !isBrokenPipe(err) {
		t.Fatalf("write to a pipe without reader: %v, not a broken pipe", err)
	}
	gone := make(chan struct{})
	ew := &exitWriter{w: w, gone: func() { close(gone) }}
	_, _ = ew.Write([]byte(`{"type":"text"}` + "\n"))
	if n, err := ew.Write([]byte("more\n")); n != 5 || err != nil {
		t.Errorf("a write after the pipe broke: %d, %v; want it swallowed", n, err)
	}
	select {
	case <-gone:
	default:
		t.Fatal("exitWriter did not report the broken pipe")
	}
}
