package runtime

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/ai/faux"
	"gopi/pkg/session"
)

// Every request is bounded by the window less the answer's room: the
// configured budget's window, else the model's; the answer's room is the
// budget's, else --max-tokens, else the compaction reserve, else pi's
// default reserve.
func TestRequestBudgetSources(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		cfg    Config
		window int // the budget the first request must have been built with
		room   int
	}{
		{"the model's window less the reserve", Config{Model: ai.Info{ContextWindow: 3000}, Compaction: Compaction{ReserveTokens: 500}}, 3000, 500},
		{"an explicit window wins over the model's", Config{Model: ai.Info{ContextWindow: 1_000_000}, Budget: session.Budget{ContextWindow: 3000},
			Compaction: Compaction{ReserveTokens: 500}}, 3000, 500},
		{"max tokens is the answer's room", Config{Model: ai.Info{ContextWindow: 3000}, MaxTokens: 1200, Compaction: Compaction{ReserveTokens: 500}}, 3000, 1200},
		{"an explicit room wins over max tokens", Config{Model: ai.Info{ContextWindow: 3000}, MaxTokens: 1200, Budget: session.Budget{ReserveOutput: 900},
			Compaction: Compaction{ReserveTokens: 500}}, 3000, 900},
		{"pi's default reserve", Config{Model: ai.Info{ContextWindow: session.DefaultReserveTokens + 3000}}, session.DefaultReserveTokens + 3000, session.DefaultReserveTokens},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, leafID := usageSession(t, 30)
			m := faux.New(faux.Text("answer"))
			c.cfg.ActiveLeaf, c.cfg.Compaction.Disabled = leaf(leafID), true
			r, err := New(c.cfg, Deps{Model: m, Session: s})
			if err != nil {
				t.Fatal(err)
			}
			rec := recordContext(r)
			if _, err := r.Prompt(t.Context(), ai.UserText("next question", 2)); err != nil {
				t.Fatal(err)
			}
			sent := texts(m.Requests()[0].Messages)
			path := r.Path()
			path = path[:len(path)-1] // the answer came after the request
			want := session.BuildStableContext(path, session.Budget{ContextWindow: c.window, ReserveOutput: c.room}, session.Cut{})
			if !slices.Equal(sent, texts(want.Messages)) {
				t.Fatalf("sent %d messages, want the %d of window %d less %d", len(sent), len(want.Messages), c.window, c.room)
			}
			// The budget decides: a room 700 tokens larger or smaller sends another set.
			for _, other := range []int{c.room - 700, c.room + 700} {
				o := session.BuildStableContext(path, session.Budget{ContextWindow: c.window, ReserveOutput: other}, session.Cut{})
				if len(o.Messages) == len(want.Messages) && other > 0 {
					t.Fatalf("the scene does not tell room %d from %d", c.room, other)
				}
			}
			if len(rec.trimmed) != 1 || rec.trimmed[0].ContextWindow != c.window {
				t.Fatalf("context_trimmed %+v, want window %d", rec.trimmed, c.window)
			}
		})
	}
}

// omittedRe reads how many old messages a summary request left out.
var omittedRe = regexp.MustCompile(`the (\d+) oldest messages of this conversation were too long to include`)

// A summary request carries at most the window less the reserve (pi's
// default when none is set) of history; with no window known, all of it.
func TestSummaryRequestIsBoundedByTheWindow(t *testing.T) {
	t.Parallel()
	omitted := func(t *testing.T, window, reserve int) int {
		t.Helper()
		s, leafID := longSession(t, 60) // ≈ 24,000 tokens
		m := faux.New(faux.Text("SUMMARY"))
		cfg := Config{ActiveLeaf: leaf(leafID), Model: ai.Info{ID: "m", Provider: "faux", ContextWindow: window},
			Compaction: Compaction{ReserveTokens: reserve, KeepRecentTokens: 150}} // the last turn, whole
		r, err := New(cfg, Deps{Model: m, Session: s})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Compact(t.Context(), ""); err != nil {
			t.Fatal(err)
		}
		text := m.Requests()[0].Messages[0].Text()
		match := omittedRe.FindStringSubmatch(text)
		if match == nil {
			return 0
		}
		n, _ := strconv.Atoi(match[1])
		return n
	}
	cases := []struct {
		window, reserve int
		min, max        int // of the 118 messages to summarise, how many are left out
	}{
		{0, 0, 0, 0},     // no window: no bound
		{1, 0, 117, 117}, // a window of one token: only the newest message
		{session.DefaultReserveTokens + 8000, 0, 40, 100}, // 8,000 tokens of history
		{session.DefaultReserveTokens + 8000, session.DefaultReserveTokens + 4000, 70, 110},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("window %d reserve %d", c.window, c.reserve), func(t *testing.T) {
			if n := omitted(t, c.window, c.reserve); n < c.min || n > c.max {
				t.Fatalf("%d messages left out, want %d to %d", n, c.min, c.max)
			}
		})
	}
}

// A consumer of the Runtime's model may stop at any event: the stream
// then ends at once (a range-over-func loop panics on an event after its
// body stopped), asks the model nothing more and writes nothing more.
func TestModelStreamStopsWhenItsConsumerDoes(t *testing.T) {
	t.Parallel()
	scenes := map[string]func(t *testing.T) (*Runtime, *faux.Model, []ai.Message){
		"threshold compaction": func(t *testing.T) (*Runtime, *faux.Model, []ai.Message) {
			s, leafID := longSession(t, 10)
			m := faux.New(faux.Text("## Goal\nSUMMARY"), faux.Text("the answer"))
			cfg := Config{ActiveLeaf: leaf(leafID), Model: ai.Info{ID: "m", Provider: "faux", ContextWindow: 2400},
				Compaction: Compaction{ReserveTokens: 800, KeepRecentTokens: 300}}
			r, err := New(cfg, Deps{Model: m, Session: s})
			if err != nil {
				t.Fatal(err)
			}
			return r, m, append(r.Messages(), ai.UserText("q", 2))
		},
		"overflow compaction": func(t *testing.T) (*Runtime, *faux.Model, []ai.Message) {
			s, leafID := longSession(t, 6)
			m := faux.New(faux.Response{Error: "prompt is too long", ErrorClass: string(ai.ClassContextOverflow)},
				faux.Text("SUMMARY"), faux.Text("answer after compaction"))
			cfg := Config{ActiveLeaf: leaf(leafID), Model: ai.Info{ID: "m", Provider: "faux", ContextWindow: 1_000_000},
				Compaction: Compaction{KeepRecentTokens: 200}}
			r, err := New(cfg, Deps{Model: m, Session: s})
			if err != nil {
				t.Fatal(err)
			}
			return r, m, r.Messages()
		},
		"trimmed": func(t *testing.T) (*Runtime, *faux.Model, []ai.Message) {
			s, leafID := usageSession(t, 30)
			m := faux.New(faux.Text("answer"))
			cfg := Config{ActiveLeaf: leaf(leafID), Model: ai.Info{ID: "m", Provider: "faux", ContextWindow: 3000},
				Compaction: Compaction{Disabled: true, ReserveTokens: 500}}
			r, err := New(cfg, Deps{Model: m, Session: s})
			if err != nil {
				t.Fatal(err)
			}
			return r, m, r.Messages()
		},
	}
	for name, scene := range scenes {
		t.Run(name, func(t *testing.T) {
			// The whole stream, to know its length.
			r, m, msgs := scene(t)
			all := streamTypes(t, r, m, msgs, -1)
			if len(all) < 3 {
				t.Fatalf("events %v", all)
			}
			for stop := range len(all) {
				r, m, msgs := scene(t)
				entries := len(r.Session().Entries())
				got := streamTypes(t, r, m, msgs, stop)
				if !slices.Equal(got, all[:stop+1]) {
					t.Fatalf("stopping at %d: events %v, want %v", stop, got, all[:stop+1])
				}
				wantReqs, wantEntries := requestsAndEntriesAt(t, scene, stop)
				if n := len(m.Requests()); n != wantReqs {
					t.Fatalf("stopping at %d (%s): %d requests, want %d", stop, all[stop], n, wantReqs)
				}
				if n := len(r.Session().Entries()) - entries; n != wantEntries {
					t.Fatalf("stopping at %d (%s): %d entries written, want %d", stop, all[stop], n, wantEntries)
				}
			}
		})
	}
}

// requestsAndEntriesAt is what the stream had done when it yielded event
// stop: read from a consumer that records and never stops.
func requestsAndEntriesAt(t *testing.T, scene func(t *testing.T) (*Runtime, *faux.Model, []ai.Message), stop int) (int, int) {
	t.Helper()
	r, m, msgs := scene(t)
	entries := len(r.Session().Entries())
	p := &projector{r: r} // r sends to m, its Deps.Model
	i := 0
	reqs, written := -1, -1
	for range p.Stream(t.Context(), &ai.Request{Messages: msgs}) {
		if i == stop {
			reqs, written = len(m.Requests()), len(r.Session().Entries())-entries
		}
		i++
	}
	return reqs, written
}

// streamTypes consumes the projector's stream for msgs and stops after
// event number stop (-1: never); it returns the types seen.
func streamTypes(t *testing.T, r *Runtime, m ai.Model, msgs []ai.Message, stop int) []string {
	t.Helper()
	p := &projector{r: r} // r sends to m, its Deps.Model
	var got []string
	func() {
		defer func() {
			if v := recover(); v != nil {
				t.Fatalf("stopping after event %d: %v", stop, v)
			}
		}()
		for e := range p.Stream(context.Background(), &ai.Request{Messages: msgs}) {
			got = append(got, string(e.Type))
			if len(got) == stop+1 {
				break
			}
		}
	}()
	return got
}
