package runtime

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/ai/faux"
	"gopi/pkg/loop"
	"gopi/pkg/session"
)

// longSession is a session of turns long enough to need compaction.
func longSession(t *testing.T, turns int) (*session.MemoryStore, string) {
	t.Helper()
	s := store(t)
	parent := ""
	for i := range turns {
		for _, m := range []ai.Message{ai.UserText(fmt.Sprintf("question %d %s", i, strings.Repeat("q", 400)), 1), assistant(fmt.Sprintf("answer %d %s", i, strings.Repeat("a", 400)))} {
			e, err := s.Append(t.Context(), session.MessageEntry(parent, m))
			if err != nil {
				t.Fatal(err)
			}
			parent = e.ID
		}
	}
	return s, parent
}

func compactionEvents(r *Runtime) *[]string {
	var evs []string
	r.Control().Subscribe(func(e agentEvent) {
		switch e.Type {
		case loop.CompactionStart:
			evs = append(evs, "start:"+e.Compaction.Reason)
		case loop.CompactionEnd:
			c := e.Compaction
			evs = append(evs, fmt.Sprintf("end:%s:retry=%v:err=%s", c.Reason, c.WillRetry, c.ErrorMessage))
			// A success says what the context weighs now (pi's
			// estimatedTokensAfter): less than before, more than nothing.
			if c.ErrorMessage == "" && (c.EstimatedTokensAfter <= 0 || c.EstimatedTokensAfter >= c.TokensBefore) {
				evs = append(evs, fmt.Sprintf("estimatedTokensAfter %d with tokensBefore %d", c.EstimatedTokensAfter, c.TokensBefore))
			}
		}
	})
	return &evs
}

func TestAutoCompactionAtThreshold(t *testing.T) {
	t.Parallel()
	s, leafID := longSession(t, 10) // ~2,000 tokens
	m := faux.New(faux.Text("## Goal\nSUMMARY OF EARLIER WORK"), faux.Text("the answer"))
	cfg := Config{ActiveLeaf: leaf(leafID), Model: ai.Info{ID: "m", Provider: "faux", ContextWindow: 2400},
		Compaction: Compaction{ReserveTokens: 800, KeepRecentTokens: 300}}
	r, err := New(cfg, Deps{Model: m, Session: s})
	if err != nil {
		t.Fatal(err)
	}
	evs := compactionEvents(r)
	res, err := r.Prompt(t.Context(), ai.UserText("next question", 2))
	if err != nil || res.Reason != loop.ReasonStop {
		t.Fatalf("%v %s", err, res.Reason)
	}
	if !slices.Equal(*evs, []string{"start:threshold", "end:threshold:retry=false:err="}) {
		t.Fatalf("events %v", *evs)
	}
	var comp *session.Entry
	for _, e := range s.Entries() {
		if e.Type == session.TypeCompaction {
			comp = &e
		}
	}
	if comp == nil || !strings.Contains(comp.Summary, "SUMMARY OF EARLIER WORK") {
		t.Fatalf("no compaction entry persisted")
	}
	reqs := m.Requests()
	answerReq := reqs[len(reqs)-1] // after the summary request(s)
	if first := answerReq.Messages[0].Text(); !strings.Contains(first, "SUMMARY OF EARLIER WORK") {
		t.Fatalf("the answer's request does not start with the summary: %q", first[:min(80, len(first))])
	}
	if last := answerReq.Messages[len(answerReq.Messages)-1].Text(); last != "next question" {
		t.Fatalf("last message %q", last)
	}
	// The compaction sits on the path: the new messages hang below it.
	path := r.Path()
	if !slices.ContainsFunc(path, func(e session.Entry) bool { return e.Type == session.TypeCompaction }) {
		t.Fatal("compaction not on the active path")
	}
}

func TestOverflowCompactsAndRetriesOnce(t *testing.T) {
	t.Parallel()
	s, leafID := longSession(t, 6)
	m := faux.New(
		faux.Response{Error: "prompt is too long", ErrorClass: string(ai.ClassContextOverflow)},
		faux.Text("SUMMARY"),
		faux.Text("answer after compaction"))
	cfg := Config{ActiveLeaf: leaf(leafID), Model: ai.Info{ID: "m", Provider: "faux", ContextWindow: 1_000_000},
		Compaction: Compaction{KeepRecentTokens: 200}}
	r, err := New(cfg, Deps{Model: m, Session: s})
	if err != nil {
		t.Fatal(err)
	}
	evs := compactionEvents(r)
	res, err := r.Prompt(t.Context(), ai.UserText("q", 2))
	if err != nil || res.Reason != loop.ReasonStop {
		t.Fatalf("%v %s", err, res.Reason)
	}
	if f, _ := res.Final(); f.Text() != "answer after compaction" {
		t.Fatalf("final %q", f.Text())
	}
	if !slices.Equal(*evs, []string{"start:overflow", "end:overflow:retry=true:err="}) {
		t.Fatalf("events %v", *evs)
	}
	// An overflow after the retry is the answer: it is not compacted and
	// retried again. (The new prompt is long enough that there is
	// something to compact again.)
	m.Push(faux.Response{Error: "prompt is too long", ErrorClass: string(ai.ClassContextOverflow)},
		faux.Text("SUMMARY 2"),
		faux.Response{Error: "still too long", ErrorClass: string(ai.ClassContextOverflow)})
	*evs = nil
	res2, _ := r.Prompt(t.Context(), ai.UserText("q2 "+strings.Repeat("x", 2000), 3))
	if res2.Reason != loop.ReasonError || ai.ClassOf(res2.Err) != ai.ClassContextOverflow {
		t.Fatalf("second overflow: %s %v", res2.Reason, res2.Err)
	}
	if !slices.Equal(*evs, []string{"start:overflow", "end:overflow:retry=true:err="}) {
		t.Fatalf("second prompt's compactions %v: one per request, never a second", *evs)
	}
	if n := len(m.Requests()); n != 6 || m.Remaining() != 0 {
		t.Fatalf("%d requests, %d responses left", n, m.Remaining())
	}
	if f, _ := res2.Final(); f.StopReason != ai.StopError || f.ErrorMessage != "context_overflow: still too long" {
		t.Fatalf("the overflow after the retry is the answer: %+v", f)
	}
}

// With compaction off, neither the threshold nor an overflow compacts:
// the overflow is the answer, and nothing is written but the run's own
// messages.
func TestDisabledCompactionNeverRuns(t *testing.T) {
	t.Parallel()
	// A session whose last answer reports a context past the threshold,
	// though its messages fit the window.
	near := func(t *testing.T) (*session.MemoryStore, string) {
		s, leafID := usageSession(t, 3)
		a := assistant("a big context")
		a.Usage = ai.Usage{Input: 2800, Output: 50, TotalTokens: 2850}
		e, err := s.Append(t.Context(), session.MessageEntry(leafID, a))
		if err != nil {
			t.Fatal(err)
		}
		return s, e.ID
	}
	cfg := func(leafID string, disabled bool) Config {
		return Config{ActiveLeaf: leaf(leafID), Model: ai.Info{ID: "m", Provider: "faux", ContextWindow: 3000},
			Compaction: Compaction{Disabled: disabled, ReserveTokens: 500, KeepRecentTokens: 100}}
	}
	t.Run("threshold, enabled", func(t *testing.T) { // the scene does pass the threshold
		s, leafID := near(t)
		r, err := New(cfg(leafID, false), Deps{Model: faux.New(faux.Text("SUMMARY"), faux.Text("answer")), Session: s})
		if err != nil {
			t.Fatal(err)
		}
		evs := compactionEvents(r)
		if _, err := r.Prompt(t.Context(), ai.UserText("q", 2)); err != nil {
			t.Fatal(err)
		}
		if len(*evs) != 2 || len(compactions(s)) != 1 {
			t.Fatalf("events %v, %d compactions", *evs, len(compactions(s)))
		}
	})
	t.Run("threshold, disabled", func(t *testing.T) {
		s, leafID := near(t)
		m := faux.New(faux.Text("answer"))
		r, err := New(cfg(leafID, true), Deps{Model: m, Session: s})
		if err != nil {
			t.Fatal(err)
		}
		evs := compactionEvents(r)
		if _, err := r.Prompt(t.Context(), ai.UserText("q", 2)); err != nil {
			t.Fatal(err)
		}
		if len(*evs) != 0 || len(compactions(s)) != 0 || len(m.Requests()) != 1 || len(m.Requests()[0].Messages) != 8 {
			t.Fatalf("events %v, %d compactions, %d requests", *evs, len(compactions(s)), len(m.Requests()))
		}
	})
	t.Run("overflow, disabled", func(t *testing.T) {
		s, leafID := longSession(t, 6)
		m := faux.New(faux.Response{Error: "prompt is too long", ErrorClass: string(ai.ClassContextOverflow)}, faux.Text("SUMMARY"), faux.Text("never"))
		c := cfg(leafID, true)
		c.Model.ContextWindow = 1_000_000
		r, err := New(c, Deps{Model: m, Session: s})
		if err != nil {
			t.Fatal(err)
		}
		evs := compactionEvents(r)
		res, err := r.Prompt(t.Context(), ai.UserText("q", 2))
		if err != nil || res.Reason != loop.ReasonError || ai.ClassOf(res.Err) != ai.ClassContextOverflow {
			t.Fatalf("%v %s %v", err, res.Reason, res.Err)
		}
		if len(*evs) != 0 || len(compactions(s)) != 0 || len(m.Requests()) != 1 {
			t.Fatalf("events %v, %d compactions, %d requests", *evs, len(compactions(s)), len(m.Requests()))
		}
	})
}

func TestCompactionDisabledSendsWhatFits(t *testing.T) {
	t.Parallel()
	s, leafID := longSession(t, 10)
	m := faux.New(faux.Text("answer"))
	cfg := Config{ActiveLeaf: leaf(leafID), Model: ai.Info{ID: "m", Provider: "faux", ContextWindow: 1200}, Compaction: Compaction{Disabled: true}}
	r, err := New(cfg, Deps{Model: m, Session: s})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Prompt(t.Context(), ai.UserText("q", 2)); err != nil {
		t.Fatal(err)
	}
	req := m.Requests()[0]
	if len(req.Messages) >= 21 || req.Messages[len(req.Messages)-1].Text() != "q" {
		t.Fatalf("the oldest turns were not dropped: %d messages", len(req.Messages))
	}
}

func TestManualCompactWithFocus(t *testing.T) {
	t.Parallel()
	s, leafID := longSession(t, 6)
	m := faux.New(faux.Text("MANUAL SUMMARY"), faux.Text("answer"))
	cfg := Config{ActiveLeaf: leaf(leafID), Model: ai.Info{ID: "m", Provider: "faux", ContextWindow: 1_000_000},
		Compaction: Compaction{KeepRecentTokens: 200}}
	r, err := New(cfg, Deps{Model: m, Session: s})
	if err != nil {
		t.Fatal(err)
	}
	e, err := r.Compact(t.Context(), "the parser bug")
	if err != nil {
		t.Fatal(err)
	}
	if e.Type != session.TypeCompaction || !strings.Contains(e.Summary, "MANUAL SUMMARY") || r.Leaf() != e.ID {
		t.Fatalf("entry %+v, leaf %s", e, r.Leaf())
	}
	if req := m.Requests()[0]; !strings.Contains(req.Messages[len(req.Messages)-1].Text(), "Additional focus: the parser bug") {
		t.Fatal("the focus did not reach the summary request")
	}
	// Right after a compaction there is nothing left to compact.
	if _, err := r.Compact(t.Context(), ""); err == nil {
		t.Fatal("a second compaction right away succeeded")
	}
	if _, err := r.Prompt(t.Context(), ai.UserText("q", 2)); err != nil {
		t.Fatal(err)
	}
	if first := m.Requests()[1].Messages[0].Text(); !strings.Contains(first, "MANUAL SUMMARY") {
		t.Fatalf("the next request does not start with the summary: %.80q", first)
	}
}
