// Package rpcdrive plays a script of commands to a process speaking pi's
// RPC protocol (gopi rpc, pi --mode rpc) and collects what it writes.
// It reads stdout as pi's own client does: records end at LF only (a
// U+2028 or U+2029 inside a JSON string is not a break), a CR before the
// LF is dropped. Tests use it through the binary; scripts/rpcdrive uses
// it to record a transcript of any RPC process.
package rpcdrive

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// Step is one line of a script:
//
//	send TEXT       write TEXT and a LF to stdin (any text: bad input too)
//	wait SUBSTRING  read records until one contains SUBSTRING
//	touch FILE      create FILE (relative to the folder given to Run), e.g.
//	                to let a tool that waits for it finish
//	close           close stdin
//	signal NAME     send the process a signal (INT, TERM, HUP) through
//	                Run's signal function
//	capture NAME RE take RE's first group from the newest record read so
//	                far that RE matches, as NAME: {{NAME}} in a later send
//	                is replaced by it (a JSON-RPC client's session id)
//	stall           stop reading stdout, and wait until its pipe is full
//	                (the process's next write waits for a reader); stdout
//	                must tell that (a Full() (bool, error) method). Nothing
//	                more is read: after the last step Run returns at once
//	                (stdin stays open unless closed)
//	hangup          close stdout, as a reader that goes away does (head
//	                -c1); after the last step Run returns at once (stdin
//	                stays open unless closed)
//
// {{NAME}} in a send is also replaced by the values RunWith is given.
// Empty lines and lines starting with # are skipped.
type Step struct {
	Op, Arg string
}

// Parse reads a script.
func Parse(text string) ([]Step, error) {
	var out []Step
	for i, line := range strings.Split(text, "\n") {
		// A CR is kept: "send X" followed by CR sends a CRLF line.
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		op, arg, _ := strings.Cut(line, " ")
		switch op {
		case "capture":
			name, re, _ := strings.Cut(arg, " ")
			if name == "" || re == "" {
				return nil, fmt.Errorf("script line %d: capture needs a name and a regexp", i+1)
			}
			if _, err := regexp.Compile(re); err != nil {
				return nil, fmt.Errorf("script line %d: capture: %v", i+1, err)
			}
		case "send", "wait", "touch", "signal":
			if arg == "" {
				return nil, fmt.Errorf("script line %d: %s needs an argument", i+1, op)
			}
		case "close", "stall", "hangup":
		default:
			return nil, fmt.Errorf("script line %d: unknown step %q (use send, wait, capture, touch, signal, stall, hangup or close)", i+1, op)
		}
		out = append(out, Step{Op: op, Arg: arg})
	}
	return out, nil
}

// Reader splits a stream into records at LF only, as pi's client does.
type Reader struct {
	r *bufio.Reader
}

// NewReader returns a Reader of r.
func NewReader(r io.Reader) *Reader { return &Reader{r: bufio.NewReaderSize(r, 64<<10)} }

// Next returns the next record without its line end; io.EOF after the
// last (a last record without LF is returned first).
func (r *Reader) Next() ([]byte, error) {
	b, err := r.r.ReadBytes('\n')
	if len(b) == 0 && err != nil {
		return nil, err
	}
	b = bytes.TrimSuffix(b, []byte("\n"))
	b = bytes.TrimSuffix(b, []byte("\r"))
	return b, nil
}

// ErrTimeout: a wait saw no matching record within the limit.
var ErrTimeout = errors.New("no matching record")

// Run plays steps: commands go to stdin, records are read from stdout.
// After the last step stdin is closed and the records are read to the
// end. It returns every record read. A wait that sees stdout end, or no
// match within limit, is an error (with the records so far).
func Run(steps []Step, dir string, stdin io.WriteCloser, stdout io.Reader, limit time.Duration, signal func(name string) error) ([][]byte, error) {
	return RunWith(steps, dir, stdin, stdout, limit, signal, nil)
}

// RunWith is Run with values for {{NAME}} in send steps.
func RunWith(steps []Step, dir string, stdin io.WriteCloser, stdout io.Reader, limit time.Duration, signal func(name string) error, vars map[string]string) ([][]byte, error) {
	d := &driver{
		dir: dir, stdin: stdin, stdout: stdout, limit: limit, signal: signal,
		values:  map[string]string{},
		recs:    make(chan []byte, 1024),
		stalled: make(chan struct{}),
	}
	for k, v := range vars {
		d.values[k] = v
	}
	quit := make(chan struct{})
	defer close(quit)
	go d.read(quit)
	for _, s := range steps {
		if err := d.step(s); err != nil {
			return d.got, err
		}
	}
	if d.early {
		return d.got, nil // the process ends by itself, or is made to
	}
	if !d.closed {
		_ = d.stdin.Close()
	}
	return d.got, d.drain()
}

// driver is one play of a script.
type driver struct {
	dir    string
	stdin  io.WriteCloser
	stdout io.Reader
	limit  time.Duration
	signal func(name string) error
	values map[string]string // {{NAME}} in a send, given and captured

	recs    chan []byte   // stdout's records, closed at its end
	stalled chan struct{} // closed by stall: read no more
	got     [][]byte      // the records taken from recs so far

	closed bool // stdin was closed
	stall  bool // stdout is no longer read
	early  bool // return after the steps
}

// read sends stdout's records to recs until stdout ends, a stall, or
// quit.
func (d *driver) read(quit <-chan struct{}) {
	defer close(d.recs)
	rd := NewReader(d.stdout)
	for {
		select {
		case <-d.stalled:
			return
		default:
		}
		b, err := rd.Next()
		if err != nil {
			return
		}
		select {
		case d.recs <- append([]byte(nil), b...):
		case <-quit:
			return
		}
	}
}

// step plays one step.
func (d *driver) step(s Step) error {
	switch s.Op {
	case "hangup":
		return d.hangup()
	case "stall":
		return d.stallReading()
	case "capture":
		return d.capture(s.Arg)
	case "send":
		if _, err := io.WriteString(d.stdin, d.expand(s.Arg)+"\n"); err != nil {
			return fmt.Errorf("send %s: %w", s.Arg, err)
		}
	case "touch":
		return os.WriteFile(filepath.Join(d.dir, s.Arg), nil, 0o644)
	case "signal":
		if d.signal == nil {
			return errors.New("signal: no process to signal")
		}
		return d.signal(s.Arg)
	case "close":
		d.closed = true
		return d.stdin.Close()
	case "wait":
		return d.wait(s.Arg)
	}
	return nil
}

// expand replaces {{NAME}} in s by NAME's value.
func (d *driver) expand(s string) string {
	for k, v := range d.values {
		s = strings.ReplaceAll(s, "{{"+k+"}}", v)
	}
	return s
}

func (d *driver) hangup() error {
	c, ok := d.stdout.(io.Closer)
	if !ok {
		return errors.New("hangup: this stdout cannot be closed")
	}
	d.early = true
	return c.Close()
}

// stallReading stops reading stdout (once) and waits until its pipe is
// full.
func (d *driver) stallReading() error {
	f, ok := d.stdout.(interface{ Full() (bool, error) })
	if !ok {
		return errors.New("stall: this stdout cannot tell when its pipe is full")
	}
	if !d.stall {
		d.stall, d.early = true, true
		close(d.stalled)
	}
	return waitFull(f.Full, d.limit)
}

// capture takes arg's regexp's first group from the newest record read
// so far that it matches, as arg's name.
func (d *driver) capture(arg string) error {
	name, pattern, _ := strings.Cut(arg, " ")
	re := regexp.MustCompile(pattern)
	for i := len(d.got) - 1; i >= 0; i-- {
		if m := re.FindSubmatch(d.got[i]); len(m) > 1 {
			d.values[name] = string(m[1])
			return nil
		}
	}
	return fmt.Errorf("capture %s: no record read so far matches %s", name, pattern)
}

// wait reads records until one contains substr.
func (d *driver) wait(substr string) error {
	timer := time.NewTimer(d.limit)
	defer timer.Stop()
	for {
		select {
		case b, ok := <-d.recs:
			if !ok {
				return fmt.Errorf("wait %s: stdout ended first", substr)
			}
			d.got = append(d.got, b)
			if bytes.Contains(b, []byte(substr)) {
				return nil
			}
		case <-timer.C:
			return fmt.Errorf("wait %s: %w after %v", substr, ErrTimeout, d.limit)
		}
	}
}

// drain reads the records to stdout's end.
func (d *driver) drain() error {
	timer := time.NewTimer(d.limit)
	defer timer.Stop()
	for {
		select {
		case b, ok := <-d.recs:
			if !ok {
				return nil
			}
			d.got = append(d.got, b)
		case <-timer.C:
			return fmt.Errorf("stdout did not end within %v after stdin was closed", d.limit)
		}
	}
}

func waitFull(full func() (bool, error), limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		ok, err := full()
		switch {
		case err != nil:
			return fmt.Errorf("stall: %w", err)
		case ok:
			return nil
		case time.Now().After(deadline):
			return fmt.Errorf("stall: stdout's pipe did not fill within %v", limit)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
