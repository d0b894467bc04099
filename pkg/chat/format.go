package chat

import (
	"fmt"
	"io"
	"strings"
	"sync"
)

// palette colours text with ANSI escapes, or not at all (NO_COLOR,
// --no-color).
type palette struct{ on bool }

func (p palette) wrap(code, s string) string {
	if !p.on || s == "" {
		return s
	}
	return "\033[" + code + "m" + s + "\033[0m"
}

func (p palette) dim(s string) string   { return p.wrap("2", s) }
func (p palette) red(s string) string   { return p.wrap("31", s) }
func (p palette) green(s string) string { return p.wrap("32", s) }
func (p palette) cyan(s string) string  { return p.wrap("36", s) }
func (p palette) bold(s string) string  { return p.wrap("1", s) }

// screen writes whole lines to the terminal, one writer at a time, and
// keeps the first write error. The terminal's writer redraws the prompt
// after each write, so a partial line would end up before the prompt.
type screen struct {
	mu      sync.Mutex
	w       io.Writer
	live    LiveWriter // w's live row; nil when it has none
	err     error
	stopped bool
}

func (s *screen) line(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil && !s.stopped {
		_, s.err = io.WriteString(s.w, text+"\n")
	}
}

// stop makes every later line a no-op.
func (s *screen) stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.live != nil && !s.stopped && s.err == nil {
		s.live.SetLive("")
	}
	s.stopped = true
}

// error returns the first write error.
func (s *screen) error() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// lines writes a block of text, one line per write.
func (s *screen) lines(text string) {
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		s.line(l)
	}
}

// wrapper turns streamed text into whole lines no wider than width:
// a line is written when its newline arrives or when it is full, broken
// at the last space.
type wrapper struct {
	width   int
	pending string
}

// add takes a delta and returns the lines it completed. Each pass looks
// at one line's worth of pending text (its first width characters and
// the byte after them), never at the whole of it: a long delta (an
// answer sent in one piece) costs its length, not its length times its
// number of lines.
func (w *wrapper) add(delta string) []string {
	w.pending += delta
	var out []string
	for {
		cut := runeOffset(w.pending, max(w.width, 0)) // the first width characters
		if i := strings.IndexByte(w.pending[:min(cut+1, len(w.pending))], '\n'); i >= 0 {
			out = append(out, w.pending[:i])
			w.pending = w.pending[i+1:]
			continue
		}
		if w.width <= 0 || cut == len(w.pending) {
			return out
		}
		if sp := strings.LastIndexByte(w.pending[:cut], ' '); sp > 0 {
			out = append(out, w.pending[:sp])
			w.pending = w.pending[sp+1:]
		} else {
			out = append(out, w.pending[:cut])
			w.pending = w.pending[cut:]
		}
	}
}

// flush returns what is left as a last line, if anything.
func (w *wrapper) flush() []string {
	lines := w.add("")
	if w.pending != "" {
		lines = append(lines, w.pending)
		w.pending = ""
	}
	return lines
}

// runeOffset is the byte offset of the n-th rune of s.
func runeOffset(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}

// formatTokens writes a token count as people read it: 340, 12.3k, 200k, 1.2M.
func formatTokens(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 100_000:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/1000), ".0") + "k"
	case n < 1_000_000:
		return fmt.Sprintf("%dk", (n+500)/1000)
	}
	return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/1_000_000), ".0") + "M"
}

// formatCost writes dollars with enough digits to see small runs.
func formatCost(c float64) string {
	if c >= 1 {
		return fmt.Sprintf("$%.2f", c)
	}
	return fmt.Sprintf("$%.4f", c)
}
