package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"gopi/pkg/settings"
)

// stdinNotice is how long gopi waits for stdin before saying so.
const stdinNotice = 3 * time.Second

// defaultMaxPromptBytes bounds a prompt unless --max-prompt-bytes or
// maxPromptBytes says otherwise.
const defaultMaxPromptBytes = settings.DefaultMaxPromptBytes

// promptTooLarge is the usage error of a prompt over the bound.
func promptTooLarge(what string, limit int, c *settings.Settings) error {
	return promptOverLimit(fmt.Sprintf("%s is larger than %d bytes", what, limit), c)
}

// promptOverLimit says what is over the bound, which setting set it and
// what to do.
func promptOverLimit(fact string, c *settings.Settings) error {
	return usageErr("%s, the limit set by %s: shorten it, or raise the limit with --max-prompt-bytes N", fact, c.Origin("maxPromptBytes"))
}

// readPrompt joins head (the @file text) and the words of args and, when
// stdin is not a terminal, puts what it holds, trimmed, before them and a
// blank line (alone, it is the prompt). A prompt over limit bytes is refused before
// anything is sent or written; stdin is never read past limit+1 bytes.
func readPrompt(ctx context.Context, sys *System, c *settings.Settings, head string, args []string, noStdin bool, limit int) (string, error) {
	prompt := head + strings.Join(args, " ")
	if len(prompt) > limit {
		return "", promptTooLarge("the prompt given as arguments", limit, c)
	}
	if !noStdin && !sys.StdinTTY && sys.Stdin != nil {
		in, err := readStdin(ctx, sys, limit)
		if err != nil {
			return "", err
		}
		if len(in) > limit {
			return "", promptTooLarge("the prompt on stdin", limit, c)
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
		return "", usageErr("empty prompt: give it as arguments (gopi run \"fix the tests\") or on stdin")
	}
	if len(prompt) > limit {
		return "", promptTooLarge("the prompt (arguments and stdin together)", limit, c)
	}
	return prompt, nil
}

// readStdin reads stdin to its end, or to limit+1 bytes: enough to tell a
// prompt over the limit, never an unbounded read. When nothing has arrived
// after a few seconds and stderr is a terminal, it says what it is
// waiting for.
func readStdin(ctx context.Context, sys *System, limit int) (string, error) {
	type result struct {
		data []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		b, err := io.ReadAll(io.LimitReader(sys.Stdin, int64(limit)+1))
		done <- result{b, err}
	}()
	timer := time.NewTimer(stdinNotice)
	defer timer.Stop()
	for {
		select {
		case r := <-done:
			if r.err != nil {
				return "", usageErr("read the prompt from stdin: %v (give the prompt as arguments, or pass --no-stdin)", r.err)
			}
			if len(r.data) > limit {
				return string(r.data), nil // the caller refuses it, by its length
			}
			return strings.TrimRight(string(r.data), "\n"), nil
		case <-timer.C:
			if sys.StderrTTY {
				fmt.Fprintln(sys.Stderr, "gopi: waiting for the prompt on stdin (end it with Ctrl-D, or pass --no-stdin)")
			}
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return "", &cause{"the prompt on stdin did not end before the deadline (--timeout)", ctx.Err()}
			}
			return "", &cause{"interrupted while waiting for the prompt on stdin", ctx.Err()}
		}
	}
}

func isDir(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return errors.New(fileProblem(err))
	}
	if !st.IsDir() {
		return fmt.Errorf("%s is not a folder", path)
	}
	return nil
}
