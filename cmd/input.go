package cmd

import (
	"errors"
	"fmt"
	"os"

	"gopi/pkg/input"
	"gopi/pkg/resources"
	"gopi/pkg/tools"
)

// defaultMaxPromptBytes is --max-prompt-bytes' default.
const defaultMaxPromptBytes = input.DefaultMaxBytes

// promptLimit reads the prompt bound: --max-prompt-bytes, GOPI_MAX_PROMPT_BYTES
// or maxPromptBytes, else the default; 0 or less is a usage error.
func promptLimit(c *settings) (int, error) {
	if c.str("maxPromptBytes") == "" {
		return defaultMaxPromptBytes, nil
	}
	n, err := c.integer("maxPromptBytes")
	if err != nil {
		return 0, err
	}
	if n <= 0 {
		return 0, usageErr("%s %q: give a whole number of bytes above 0 (the default is %d)", c.origin("maxPromptBytes"), c.str("maxPromptBytes"), defaultMaxPromptBytes)
	}
	return n, nil
}

// promptInput is the reader of this invocation's prompt: its working
// folder and home, its bound, the secrets scrubbed from @file text, the
// templates and skills (cat, nil for none). Stdin is read only when
// withStdin is set and stdin is not a terminal; the notice goes to a
// terminal's stderr only.
func promptInput(sys *System, s *runSettings, cat *resources.Catalog, secrets *tools.Secrets, withStdin bool) *input.Reader {
	r := &input.Reader{Cwd: s.cwd, Home: sys.getenv("HOME"), Limit: s.maxPrompt, LimitOrigin: s.cfg.origin("maxPromptBytes"),
		Secrets: secrets, Now: sys.Now}
	if cat != nil {
		r.Expander = cat
	}
	if withStdin && !sys.StdinTTY && sys.Stdin != nil {
		r.Stdin = sys.Stdin
		if sys.StderrTTY {
			r.Notice = sys.Stderr
		}
	}
	return r
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
