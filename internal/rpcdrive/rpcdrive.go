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
	values := map[string]string{}
	for k, v := range vars {
		values[k] = v
	}
	expand := func(s string) string {
		for k, v := range values {
			s = strings.ReplaceAll(s, "{{"+k+"}}", v)
		}
		return s
	}
	recs := make(chan []byte, 1024)
	stalled := make(chan struct{}) // closed by stall: read no more
	quit := make(chan struct{})
	defer close(quit)
	go func() {
		defer close(recs)
		rd := NewReader(stdout)
		for {
			select {
			case <-stalled:
				return
			default:
			}
			b, err := rd.Next()
			if err != nil {
				return
			}
			select {
			case recs <- append([]byte(nil), b...):
			case <-quit:
				return
			}
		}
	}()
	var got [][]byte
	closed, stall, early := false, false, false // early: return after the steps
	for _, s := range steps {
		switch s.Op {
		case "hangup":
			c, ok := stdout.(io.Closer)
			if !ok {
				return got, errors.New("hangup: this stdout cannot be closed")
			}
			early = true
			if err := c.Close(); err != nil {
				return got, err
			}
		case "stall":
			f, ok := stdout.(interface{ Full() (bool, error) })
			if !ok {
				return got, errors.New("stall: this stdout cannot tell when its pipe is full")
			}
			if !stall {
				stall, early = true, true
				close(stalled)
			}
			if err := waitFull(f.Full, limit); err != nil {
				return got, err
			}
		case "capture":
			name, pattern, _ := strings.Cut(s.Arg, " ")
			re := regexp.MustCompile(pattern)
			found := false
			for i := len(got) - 1; i >= 0 && !found; i-- {
				if m := re.FindSubmatch(got[i]); len(m) > 1 {
					values[name], found = string(m[1]), true
				}
			}
			if !found {
				return got, fmt.Errorf("capture %s: no record read so far matches %s", name, pattern)
			}
		case "send":
			if _, err := io.WriteString(stdin, expand(s.Arg)+"\n"); err != nil {
				return got, fmt.Errorf("send %s: %w", s.Arg, err)
			}
		case "touch":
			if err := os.WriteFile(filepath.Join(dir, s.Arg), nil, 0o644); err != nil {
				return got, err
			}
		case "signal":
			if signal == nil {
				return got, errors.New("signal: no process to signal")
			}
			if err := signal(s.Arg); err != nil {
				return got, err
			}
		case "close":
			closed = true
			if err := stdin.Close(); err != nil {
				return got, err
			}
		case "wait":
			timer := time.NewTimer(limit)
			found := false
			for !found {
				select {
				case b, ok := <-recs:
					if !ok {
						timer.Stop()
						return got, fmt.Errorf("wait %s: stdout ended first", s.Arg)
					}
					got = append(got, b)
					found = bytes.Contains(b, []byte(s.Arg))
				case <-timer.C:
					return got, fmt.Errorf("wait %s: %w after %v", s.Arg, ErrTimeout, limit)
				}
			}
			timer.Stop()
		}
	}
	if early {
		return got, nil // the process ends by itself, or is made to
	}
	if !closed {
		_ = stdin.Close()
	}
	timer := time.NewTimer(limit)
	defer timer.Stop()
	for {
		select {
		case b, ok := <-recs:
			if !ok {
				return got, nil
			}
			got = append(got, b)
		case <-timer.C:
			return got, fmt.Errorf("stdout did not end within %v after stdin was closed", limit)
		}
	}
}

// waitFull waits until full reports true, at most limit.
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
