package rpc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"

	"gopi/internal/interrupt"
	"gopi/pkg/ai/faux"
	gruntime "gopi/pkg/runtime"
	"gopi/pkg/session"

	"gopi/pkg/exitcode"
)

func TestExitCode(t *testing.T) {
	var b bytes.Buffer
	for _, c := range []struct {
		interrupted bool
		err         error
		want        int
	}{
		{false, nil, exitcode.OK},
		{true, nil, exitcode.Interrupted},
		{false, errors.New("disk full"), exitcode.Internal},
		{false, fmt.Errorf("%w", ErrInputEnded), exitcode.Internal},
	} {
		if got := ExitCode(&b, c.interrupted, c.err); got != c.want {
			t.Errorf("ExitCode(%v, %v) = %d; want %d", c.interrupted, c.err, got, c.want)
		}
	}
	if !bytes.Contains(b.Bytes(), []byte("gopi: writing the output failed: disk full\n")) {
		t.Errorf("stderr = %q", b.String())
	}
}

// A reader gone away or one that stopped reading ends the mode as a
// signal does, said on stderr, unless stdin had ended first.
func TestExitCodeOfAReaderGone(t *testing.T) {
	for _, c := range []struct {
		err    error
		want   int
		stderr string
	}{
		{fmt.Errorf("write: %w", syscall.EPIPE), exitcode.Interrupted, "gopi: stdout was closed by its reader: rpc ended, a run going on was aborted; the session keeps what was done\n"},
		{errors.Join(ErrInputEnded, syscall.EPIPE), exitcode.OK, "gopi: stdout was closed by its reader: rpc ended, a run going on was aborted; the session keeps what was done\n"},
		{fmt.Errorf("write: %w", os.ErrDeadlineExceeded), exitcode.Interrupted, interrupt.StuckLine + "\n"},
	} {
		var b bytes.Buffer
		if got := ExitCode(&b, false, c.err); got != c.want || b.String() != c.stderr {
			t.Errorf("ExitCode(%v) = %d, stderr %q; want %d, %q", c.err, got, b.String(), c.want, c.stderr)
		}
	}
}

// failingReader gives its lines, then fails.
type failingReader struct {
	r   io.Reader
	err error
}

func (f *failingReader) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if err == io.EOF {
		return n, f.err
	}
	return n, err
}

// Serve ends at stdin's end saying nothing on stderr, and at a read
// error saying it; the commands read before are answered.
func TestServeStdinEnds(t *testing.T) {
	for _, c := range []struct {
		err  error
		diag string
	}{
		{io.EOF, ""},
		{errors.New("device gone"), "gopi: reading stdin: device gone\n"},
	} {
		rt, err := gruntime.New(gruntime.Config{Model: faux.Info}, gruntime.Deps{Model: faux.New(), Session: session.NewMemoryStore("/work/proj", session.Options{})})
		if err != nil {
			t.Fatal(err)
		}
		var out, diag bytes.Buffer
		srv := NewServer(&out, &diag, Opened{Runtime: rt, Model: faux.Info}, benchHost{}, Options{})
		in := &failingReader{r: strings.NewReader(`{"id":"1","type":"get_messages"}` + "\n"), err: c.err}
		if err := srv.Serve(context.Background(), in); err != nil {
			t.Fatalf("Serve: %v", err)
		}
		if want := `{"id":"1","type":"response","schemaVersion":1,"command":"get_messages","success":true,"data":{"messages":[]}}` + "\n"; out.String() != want || diag.String() != c.diag {
			t.Errorf("stdin ending with %v: out %q, diag %q; want %q, %q", c.err, out.String(), diag.String(), want, c.diag)
		}
	}
}
