package input

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"gopi/pkg/ai"
	"gopi/pkg/assemble"
	"gopi/pkg/resources"
	"gopi/pkg/tools"
)

// StdinNotice is how long a Reader waits for stdin before saying so.
const StdinNotice = 3 * time.Second

// Expander expands a prompt template or skill named at a prompt's start,
// refusing (resources.ErrRefused) an expansion over limit bytes.
// *resources.Catalog is one.
type Expander interface {
	ExpandWithin(prompt string, limit int) (string, error)
}

// Reader reads one invocation's prompt.
type Reader struct {
	Cwd  string // @file paths are relative to it
	Home string // ~ in an @file path ("" leaves ~ as it is)
	// Limit bounds a prompt in bytes; LimitOrigin names the setting that
	// set it, as errors quote it ("--max-prompt-bytes").
	Limit       int
	LimitOrigin string
	Secrets     *tools.Secrets // scrubbed from @file text; nil scrubs nothing
	Expander    Expander       // nil expands nothing
	Now         func() time.Time
	// Stdin, when not nil, is read for the first prompt (nil: stdin is a
	// terminal, or --no-stdin). Notice, when not nil, is told after
	// NoticeAfter (StdinNotice if 0) that the prompt is awaited there.
	Stdin       io.Reader
	Notice      io.Writer
	NoticeAfter time.Duration
}

// SplitArgs sorts the command line's arguments as pi does: an argument
// starting with @ names a file for the first prompt, every other one is
// a message.
func SplitArgs(args []string) (files, messages []string) {
	for _, a := range args {
		if strings.HasPrefix(a, "@") && len(a) > 1 {
			files = append(files, a[1:])
		} else {
			messages = append(messages, a)
		}
	}
	return files, messages
}

// Run reads gopi run's prompts as pi 1.6 does: the @file arguments' text
// and images, the first message and stdin make the first prompt; every
// further message argument is a prompt of its own (then), sent after the
// one before it ended. Each is bounded and has a template or skill
// expanded (bounded too).
func (r *Reader) Run(ctx context.Context, args []string) (first ai.Message, then []ai.Message, err error) {
	files, messages := SplitArgs(args)
	head, images, err := r.Files(files)
	if err != nil {
		return ai.Message{}, nil, err
	}
	text, err := r.Prompt(ctx, head, messages[:min(len(messages), 1)])
	if err != nil {
		return ai.Message{}, nil, err
	}
	if text, err = r.Expand(text); err != nil {
		return ai.Message{}, nil, err
	}
	now := r.now().UnixMilli()
	first = ai.UserText(text, now)
	first.Content = append(first.Content, images...)
	for _, m := range messages[min(len(messages), 1):] {
		if len(m) > r.Limit {
			return ai.Message{}, nil, r.TooLarge("a message given as an argument")
		}
		if m, err = r.Expand(m); err != nil {
			return ai.Message{}, nil, err
		}
		then = append(then, ai.UserText(m, now))
	}
	return first, then, nil
}

// Chat reads chat's arguments as pi's interactive mode reads its initial
// message: @file arguments as Run reads them (a missing or refused file
// is a usage error before the terminal is taken), the other words joined
// by spaces. Stdin is not read.
func (r *Reader) Chat(args []string) (words, files string, images []ai.Content, err error) {
	paths, messages := SplitArgs(args)
	if len(paths) > 0 {
		if files, images, err = r.Files(paths); err != nil {
			return "", "", nil, err
		}
	}
	return strings.Join(messages, " "), files, images, nil
}

// Message checks and expands one message given apart (an rpc prompt,
// steer or follow_up): bounded, expanded within the bound.
func (r *Reader) Message(text string) (string, error) {
	if len(text) > r.Limit {
		return "", r.TooLarge("the message")
	}
	return r.Expand(text)
}

// Expand expands a template or skill in one prompt, within the bound.
func (r *Reader) Expand(text string) (string, error) {
	if r.Expander == nil {
		return text, nil
	}
	text, err := r.Expander.ExpandWithin(text, r.Limit)
	if errors.Is(err, resources.ErrRefused) {
		return "", r.overLimit(err.Error())
	}
	if err != nil {
		return "", assemble.Usagef("%v", err)
	}
	return text, nil
}

// TooLarge is the usage error of what (a prompt) over the bound.
func (r *Reader) TooLarge(what string) error {
	return r.overLimit(fmt.Sprintf("%s is larger than %d bytes", what, r.Limit))
}

// overLimit says what is over the bound, which setting set it and what
// to do.
func (r *Reader) overLimit(fact string) error {
	return assemble.Usagef("%s, the limit set by %s: shorten it, or raise the limit with --max-prompt-bytes N", fact, r.LimitOrigin)
}

func (r *Reader) now() time.Time {
	if r.Now == nil {
		return time.Now()
	}
	return r.Now()
}
