package term

import (
	"bytes"
	"io"
	"testing"
)

// The live row is drawn below the lines written, redrawn in place (the
// old row erased first), kept below every line written after it, and
// removed by SetLive(""); once the line editor left it, it is neither
// erased nor redrawn.
func TestLiveRowIsRedrawnInPlace(t *testing.T) {
	var w bytes.Buffer
	o := &liveOut{w: &w}
	step := func(what string, do func(), want string) {
		t.Helper()
		w.Reset()
		do()
		if got := w.String(); got != want {
			t.Fatalf("%s: wrote %q, want %q", what, got, want)
		}
	}
	write := func(s string) func() {
		return func() {
			if n, err := o.Write([]byte(s)); n != len(s) || err != nil {
				t.Fatalf("Write(%q) = %d, %v", s, n, err)
			}
		}
	}
	step("a line without a live row", write("first\n"), "first\n")
	step("a live row drawn", func() { o.SetLive("⠋ thinking…") }, "⠋ thinking…\n")
	step("the same row again", func() { o.SetLive("⠋ thinking…") }, "")
	step("a line above the row", write("second\n"), eraseLiveRow+"second\n⠋ thinking…\n")
	step("another row", func() { o.SetLive("half a line") }, eraseLiveRow+"half a line\n")
	step("the row removed", func() { o.SetLive("") }, eraseLiveRow)
	step("a line after it", write("third\n"), "third\n")
	o.SetLive("row")
	step("the editor left the row", o.leave, "")
	step("a line after leaving", write("fourth\n"), "fourth\n")
	step("a row after leaving", func() { o.SetLive("new row") }, "new row\n")
}

type failingWriter struct{ err error }

func (f failingWriter) Write([]byte) (int, error) { return 0, f.err }

// A write that fails under the live row says so.
func TestLiveRowWriteError(t *testing.T) {
	o := &liveOut{w: failingWriter{err: io.ErrClosedPipe}, live: "row"}
	if n, err := o.Write([]byte("line\n")); n != 0 || err != io.ErrClosedPipe {
		t.Fatalf("Write = %d, %v", n, err)
	}
}
