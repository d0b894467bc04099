package tools

import (
	"context"
	"strings"
	"unicode/utf8"
)

type outputKey struct{}

// WithOutput returns ctx carrying out, which the bash tool then calls
// with every piece of the command's output as it reads it: keys scrubbed
// (Env.Secrets), cut only between characters (an invalid byte shows as
// U+FFFD), in order, and all of it, not only the tail a result keeps. The
// pieces joined are the whole output; the last one arrives before Run
// returns. Partial results (Call.Update) go on as before.
func WithOutput(ctx context.Context, out func(string)) context.Context {
	return context.WithValue(ctx, outputKey{}, out)
}

func outputFrom(ctx context.Context) func(string) {
	out, _ := ctx.Value(outputKey{}).(func(string))
	return out
}

// runeCut passes bytes on as text cut between characters: a character
// split across two reads waits for its rest.
type runeCut struct {
	out  func(string)
	held []byte
}

func (c *runeCut) write(p []byte) {
	b := append(c.held, p...)
	cut := len(b)
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax+1; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				cut = i
			}
			break
		}
	}
	if cut > 0 {
		c.out(strings.ToValidUTF8(string(b[:cut]), "\uFFFD"))
	}
	c.held = append(c.held[:0], b[cut:]...)
}

// flush passes on what is held: the end of the output.
func (c *runeCut) flush() {
	if len(c.held) > 0 {
		c.out(strings.ToValidUTF8(string(c.held), "\uFFFD"))
		c.held = c.held[:0]
	}
}
