package chat

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"gopi/pkg/agent"
	"gopi/pkg/ai"
	"gopi/pkg/loop"
)

// wrapReference is the wrapper as it was before it looked at one line's
// worth of pending text per pass: it scanned the whole pending text for
// each line it cut, so one long delta cost its length squared.
type wrapReference struct {
	width   int
	pending string
}

func (w *wrapReference) add(delta string) []string {
	w.pending += delta
	var out []string
	for {
		if i := strings.IndexByte(w.pending, '\n'); i >= 0 && utf8.RuneCountInString(w.pending[:i]) <= w.width {
			out = append(out, w.pending[:i])
			w.pending = w.pending[i+1:]
			continue
		}
		if w.width <= 0 || utf8.RuneCountInString(w.pending) <= w.width {
			return out
		}
		cut := runeOffset(w.pending, w.width)
		if sp := strings.LastIndexByte(w.pending[:cut], ' '); sp > 0 {
			out = append(out, w.pending[:sp])
			w.pending = w.pending[sp+1:]
		} else {
			out = append(out, w.pending[:cut])
			w.pending = w.pending[cut:]
		}
	}
}

// The wrapper cuts the same lines as before for any text and any way of
// splitting it into deltas: short and long words, spaces, new lines,
// multi-byte characters, deltas of one byte to several lines.
func TestWrapperCutsTheSameLinesAsBefore(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"a", "word", "unbreakablewordthatislong", " ", " ", "  ", "\n", "\n\n", "é", "日本語", "🙂", "x\ny"}
	for round := range 300 {
		width := []int{0, 1, 5, 20, 33, 80}[round%6]
		var text strings.Builder
		for range rng.IntN(400) {
			text.WriteString(pieces[rng.IntN(len(pieces))])
		}
		s := text.String()
		got, want := &wrapper{width: width}, &wrapReference{width: width}
		var gotLines, wantLines []string
		for len(s) > 0 {
			n := min(len(s), 1+rng.IntN(3*width+2))
			for n < len(s) && !utf8.RuneStart(s[n]) {
				n++ // deltas never split a character
			}
			gotLines, wantLines = append(gotLines, got.add(s[:n])...), append(wantLines, want.add(s[:n])...)
			s = s[n:]
		}
		gotLines = append(gotLines, got.flush()...)
		wantLines = append(wantLines, want.add("")...)
		if want.pending != "" {
			wantLines = append(wantLines, want.pending)
		}
		if fmt.Sprintf("%q", gotLines) != fmt.Sprintf("%q", wantLines) {
			t.Fatalf("width %d, text %q:\n got %q\nwant %q", width, text.String(), gotLines, wantLines)
		}
	}
}

// renderLong shows an answer of n words, sent in deltas of size bytes,
// on a chat screen 80 columns wide, and returns the lines written.
func renderLong(n, size int) int {
	lines := 0
	r := &renderer{scr: &screen{w: lineCounter{&lines}}, now: time.Now, width: func() int { return 80 },
		took: func(string) {}, activity: func(string) {}}
	answer := strings.Repeat("word ", n)
	ans := ai.Message{Role: ai.RoleAssistant}
	r.event(agent.Event{RunID: 1, Event: loop.Event{Type: loop.AgentStart}})
	r.event(agent.Event{RunID: 1, Event: loop.Event{Type: loop.MessageStart, Message: &ans}})
	for i := 0; i < len(answer); i += size {
		d := answer[i:min(i+size, len(answer))]
		r.event(agent.Event{RunID: 1, Event: loop.Event{Type: loop.MessageUpdate, Stream: &ai.Event{Type: ai.EventTextDelta, Delta: d}}})
	}
	r.event(agent.Event{RunID: 1, Event: loop.Event{Type: loop.MessageEnd, Message: &ans}})
	return lines
}

type lineCounter struct{ n *int }

func (c lineCounter) Write(p []byte) (int, error) {
	*c.n += strings.Count(string(p), "\n")
	return len(p), nil
}

// BenchmarkChatRender shows answers of 1,000, 10,000 and 100,000 words
// on the chat screen, in five-byte deltas and in one delta (a server that
// sends the answer in one piece): ns/word stays flat when linear.
func BenchmarkChatRender(b *testing.B) {
	for _, delta := range []string{"word", "whole"} {
		for _, n := range []int{1_000, 10_000, 100_000} {
			b.Run(fmt.Sprintf("delta=%s/words=%d", delta, n), func(b *testing.B) {
				size := len("word ")
				if delta == "whole" {
					size = n * len("word ")
				}
				b.ReportAllocs()
				for b.Loop() {
					if renderLong(n, size) < n*len("word ")/80 {
						b.Fatal("too few lines")
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/word")
			})
		}
	}
}
