package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// stdinNotice is how long gopi waits for stdin before saying so.
const stdinNotice = 3 * time.Second

// readPrompt joins the words of args and, when stdin is not a terminal,
// appends what it holds after a blank line (alone, it is the prompt).
func readPrompt(ctx context.Context, sys *System, args []string, noStdin bool) (string, error) {
	prompt := strings.Join(args, " ")
	if !noStdin && !sys.StdinTTY && sys.Stdin != nil {
		in, err := readStdin(ctx, sys)
		if err != nil {
			return "", err
		}
		switch {
		case strings.TrimSpace(in) == "":
		case strings.TrimSpace(prompt) == "":
			prompt = in
		default:
			prompt = prompt + "\n\n" + in
		}
	}
	if strings.TrimSpace(prompt) == "" {
		return "", usageErr("empty prompt: give it as arguments (gopi run \"fix the tests\") or on stdin")
	}
	return prompt, nil
}

// readStdin reads stdin to its end. When nothing has arrived after a few
// seconds and stderr is a terminal, it says what it is waiting for.
func readStdin(ctx context.Context, sys *System) (string, error) {
	type result struct {
		data []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		b, err := io.ReadAll(sys.Stdin)
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
			return strings.TrimRight(string(r.data), "\n"), nil
		case <-timer.C:
			if sys.StderrTTY {
				fmt.Fprintln(sys.Stderr, "gopi: waiting for the prompt on stdin (end it with Ctrl-D, or pass --no-stdin)")
			}
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return "", fmt.Errorf("the prompt on stdin did not end before the deadline (--timeout): %w", ctx.Err())
			}
			return "", fmt.Errorf("interrupted while waiting for the prompt on stdin: %w", ctx.Err())
		}
	}
}

func isDir(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("%s is not a folder", path)
	}
	return nil
}
