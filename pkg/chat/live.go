package chat

import (
	"strings"
	"time"

	"gopi/pkg/oneline"
)

// LiveWriter is a chat output that keeps one live row below the lines
// written to it, redrawn in place: the answer's line still arriving, or
// a spinner while the chat waits for the model or a tool. SetLive("")
// removes the row. The chat draws one only when its output is one (a
// terminal); elsewhere it writes whole lines only.
type LiveWriter interface {
	SetLive(text string)
}

// spinnerTick is how often the spinner (oneline.Spinner's frames) turns
// while the chat waits.
const spinnerTick = 120 * time.Millisecond

// waitingForModel is what the spinner says until the model's first token.
const waitingForModel = "thinking…"

// liveSpinner is the goroutine turning the live row's spinner.
type liveSpinner struct {
	stop chan struct{}
	done chan struct{}
}

// setLive shows text in the live row, when the output has one.
func (s *screen) setLive(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.live != nil && s.err == nil && !s.stopped {
		s.live.SetLive(text)
	}
}

// startSpinner turns the spinner until stopSpinner; the caller holds r.mu.
func (r *renderer) startSpinner() {
	if r.spin != nil || r.scr.live == nil {
		return
	}
	s := &liveSpinner{stop: make(chan struct{}), done: make(chan struct{})}
	r.spin = s
	go func() {
		defer close(s.done)
		t := time.NewTicker(spinnerTick)
		defer t.Stop()
		for {
			select {
			case <-s.stop:
				return
			case <-t.C:
				r.tick()
			}
		}
	}()
}

// stopSpinner stops the spinner's goroutine and waits for it; the caller
// must not hold r.mu, which a turn takes.
func (r *renderer) stopSpinner() {
	r.mu.Lock()
	s := r.spin
	r.spin = nil
	r.mu.Unlock()
	if s != nil {
		close(s.stop)
		<-s.done
	}
}

func (r *renderer) tick() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.frame++
	r.drawLive()
}

// waiting sets what the spinner says ("" for nothing) and redraws the
// live row; the caller holds r.mu.
func (r *renderer) waiting(label string) {
	r.label = label
	r.drawLive()
}

// drawLive shows the answer's line still arriving, else the spinner with
// its label, else nothing; the caller holds r.mu.
func (r *renderer) drawLive() {
	// The row must stay one terminal row: the wrapper keeps the answer's
	// line narrower than the width (a tab would widen it), the label is cut.
	switch {
	case r.text.pending != "":
		r.scr.setLive(strings.ReplaceAll(r.text.pending, "\t", " "))
	case r.label != "":
		r.scr.setLive(r.pal.dim(oneline.Spinner[r.frame%len(oneline.Spinner)] + " " + oneline.Text(r.label, max(r.width()-2, 10))))
	default:
		r.scr.setLive("")
	}
}
