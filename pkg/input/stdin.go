package input

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"gopi/pkg/assemble"
)

// Prompt joins head (the @file text) and words and, when r.Stdin is set,
// puts what stdin holds, trimmed, before them and a blank line (alone, it
// is the prompt). A prompt over the bound is refused before anything is
// sent or written; stdin is never read past Limit+1 bytes.
func (r *Reader) Prompt(ctx context.Context, head string, words []string) (string, error) {
	prompt := head + strings.Join(words, " ")
	if len(prompt) > r.Limit {
		return "", r.TooLarge("the prompt given as arguments")
	}
	if r.Stdin != nil {
		in, err := r.readStdin(ctx)
		if err != nil {
			return "", err
		}
		if len(in) > r.Limit {
			return "", r.TooLarge("the prompt on stdin")
		}
		// pi 1.6's order: stdin (trimmed) first, then the @file text and
		// the first message; gopi keeps a blank line after stdin, where
		// pi joins the two with nothing.
		in = strings.TrimSpace(in)
		switch {
		case in == "":
		case strings.TrimSpace(prompt) == "":
			prompt = in
		default:
			prompt = in + "\n\n" + prompt
		}
	}
	if strings.TrimSpace(prompt) == "" {
		return "", assemble.Usagef("empty prompt: give it as arguments (gopi run \"fix the tests\") or on stdin")
	}
	if len(prompt) > r.Limit {
		return "", r.TooLarge("the prompt (arguments and stdin together)")
	}
	return prompt, nil
}

// readStdin reads stdin to its end, or to Limit+1 bytes: enough to tell a
// prompt over the bound, never an unbounded read. When nothing has
// arrived after NoticeAfter, it tells Notice what it is waiting for.
func (r *Reader) readStdin(ctx context.Context) (string, error) {
	type result struct {
		data []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		b, err := io.ReadAll(io.LimitReader(r.Stdin, int64(r.Limit)+1))
		done <- result{b, err}
	}()
	after := r.NoticeAfter
	if after <= 0 {
		after = StdinNotice
	}
	timer := time.NewTimer(after)
	defer timer.Stop()
	for {
		select {
		case res := <-done:
			if res.err != nil {
				return "", assemble.Usagef("read the prompt from stdin: %v (give the prompt as arguments, or pass --no-stdin)", res.err)
			}
			if len(res.data) > r.Limit {
				return string(res.data), nil // the caller refuses it, by its length
			}
			return strings.TrimRight(string(res.data), "\n"), nil
		case <-timer.C:
			if r.Notice != nil {
				fmt.Fprintln(r.Notice, "gopi: waiting for the prompt on stdin (end it with Ctrl-D, or pass --no-stdin)")
			}
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return "", &waitError{"the prompt on stdin did not end before the deadline (--timeout)", ctx.Err()}
			}
			return "", &waitError{"interrupted while waiting for the prompt on stdin", ctx.Err()}
		}
	}
}

// waitError reads as its words alone while errors.Is still finds the
// context's error.
type waitError struct {
	msg string
	err error
}

func (e *waitError) Error() string { return e.msg }
func (e *waitError) Unwrap() error { return e.err }
