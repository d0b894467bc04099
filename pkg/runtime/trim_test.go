package runtime

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"strings"
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/ai/faux"
	"gopi/pkg/loop"
	"gopi/pkg/session"
	"gopi/pkg/tools"
	"gopi/pkg/tools/toolstest"
)

// usageSession is a session of turns of about 206 estimated tokens each
// whose answers report a small usage, as a long session does whose last
// answer was cheap: pi's usage-based count stays far below any window.
func usageSession(t *testing.T, turns int) (*session.MemoryStore, string) {
	t.Helper()
	s := store(t)
	parent := ""
	for i := range turns {
		answer := assistant(fmt.Sprintf("answer %03d %s", i, strings.Repeat("a", 400)))
		answer.Usage = ai.Usage{Input: 100, Output: 50, TotalTokens: 150}
		for _, m := range []ai.Message{ai.UserText(fmt.Sprintf("question %03d %s", i, strings.Repeat("q", 400)), 1), answer} {
			e, err := s.Append(t.Context(), session.MessageEntry(parent, m))
			if err != nil {
				t.Fatal(err)
			}
			parent = e.ID
		}
	}
	return s, parent
}

// summarizer answers summary requests with sum and every other request
// with main, so a test's script does not depend on how many summary
// requests a compaction makes.
// summarizer routes summary requests to sum, the others to main.
type summarizer struct{ sum, main ai.Model }

func (m summarizer) Stream(ctx context.Context, req *ai.Request) iter.Seq[ai.Event] {
	if req.SystemPrompt == session.SummarizationSystemPrompt {
		return m.sum.Stream(ctx, req)
	}
	return m.main.Stream(ctx, req)
}

// contextEvents records compaction and context_trimmed events.
type contextEvents struct {
	names   []string
	trimmed []loop.TrimInfo
}

func recordContext(r *Runtime) *contextEvents {
	rec := &contextEvents{}
	r.Control().Subscribe(func(e agentEvent) {
		switch e.Type {
		case loop.CompactionStart:
			rec.names = append(rec.names, "start:"+e.Compaction.Reason)
		case loop.CompactionEnd:
			rec.names = append(rec.names, "end:"+e.Compaction.Reason+":err="+e.Compaction.ErrorMessage)
		case loop.ContextTrimmed:
			rec.names = append(rec.names, "trimmed:"+e.Trim.Reason)
			rec.trimmed = append(rec.trimmed, *e.Trim)
		}
	})
	return rec
}

func compactions(s session.Store) []session.Entry {
	var out []session.Entry
	for _, e := range s.Entries() {
		if e.Type == session.TypeCompaction {
			out = append(out, e)
		}
	}
	return out
}

func tokens(ms []ai.Message) int {
	n := 0
	for _, m := range ms {
		n += session.EstimateTokens(m)
	}
	return n
}

// Regression: resuming a session whose path does not fit the window sent
// only the newest messages, with no compaction and no word, because pi's
// usage-based count (the last answer's usage) stayed below the threshold.
func TestResumedPathThatDoesNotFitIsCompactedFirst(t *testing.T) {
	t.Parallel()
	s, leafID := usageSession(t, 30) // ≈ 6,200 tokens
	sum, main := faux.New(faux.Text("## Goal\nSUMMARY OF EARLIER WORK")), faux.New(faux.Text("the answer"))
	cfg := Config{ActiveLeaf: leaf(leafID), Model: ai.Info{ID: "m", Provider: "faux", ContextWindow: 3000},
		Compaction: Compaction{ReserveTokens: 500, KeepRecentTokens: 600}}
	r, err := New(cfg, Deps{Model: summarizer{sum, main}, Session: s})
	if err != nil {
		t.Fatal(err)
	}
	if session.ContextTokens(r.Path()) > 2500 {
		t.Fatal("the session passes pi's threshold: it would not pin the bug")
	}
	rec := recordContext(r)
	if _, err := r.Prompt(t.Context(), ai.UserText("next question", 2)); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rec.names, []string{"start:threshold", "end:threshold:err="}) {
		t.Fatalf("events %v", rec.names)
	}
	comps := compactions(s)
	if len(comps) != 1 || !strings.Contains(comps[0].Summary, "SUMMARY OF EARLIER WORK") {
		t.Fatalf("compaction entries %+v", comps)
	}
	if len(sum.Requests()) == 0 || len(main.Requests()) != 1 {
		t.Fatalf("%d summary requests, %d answer requests", len(sum.Requests()), len(main.Requests()))
	}
	// The summary was asked for before the answer, and the answer's
	// request is the summary and the kept turns, within the limit.
	req := main.Requests()[0]
	if !strings.Contains(req.Messages[0].Text(), "SUMMARY OF EARLIER WORK") || req.Messages[len(req.Messages)-1].Text() != "next question" {
		t.Fatalf("answer request %q", texts(req.Messages))
	}
	if tokens(req.Messages) > 2500 || !strings.Contains(texts(req.Messages)[1], "question 02") {
		t.Fatalf("answer request of %d tokens keeps %q", tokens(req.Messages), texts(req.Messages)[1][:12])
	}
}

// With compaction off, the oldest turns are left out, and that is said
// once, not at every request of the run.
func TestTrimmedWithoutCompactionIsAnnouncedOnce(t *testing.T) {
	t.Parallel()
	s, leafID := usageSession(t, 30)
	m := faux.New(faux.Call("note", `{}`), faux.Call("note", `{}`), faux.Text("done"))
	cfg := Config{ActiveLeaf: leaf(leafID), Model: ai.Info{ID: "m", Provider: "faux", ContextWindow: 3000},
		Compaction: Compaction{Disabled: true, ReserveTokens: 500}}
	r, err := New(cfg, Deps{Model: m, Session: s, Tools: toolstest.Registry(t, noteTool(10))})
	if err != nil {
		t.Fatal(err)
	}
	rec := recordContext(r)
	if _, err := r.Prompt(t.Context(), ai.UserText("next question", 2)); err != nil {
		t.Fatal(err)
	}
	reqs := m.Requests()
	if len(reqs) != 3 || len(compactions(s)) != 0 {
		t.Fatalf("%d requests, %d compactions", len(reqs), len(compactions(s)))
	}
	if !slices.Equal(rec.names, []string{"trimmed:" + loop.TrimCompactionDisabled}) {
		t.Fatalf("events %v", rec.names)
	}
	first := reqs[0].Messages
	sent := len(first) - 1 // the new prompt
	tr := rec.trimmed[0]
	if tr.Messages != 60-sent || tr.Turns != tr.Messages/2 || tr.ContextWindow != 3000 || tr.Tokens != tokens(first) {
		t.Fatalf("trimmed %+v; the request kept %d old messages", tr, sent)
	}
	path := r.Path()
	if tr.FirstDroppedEntryID != path[0].ID || tr.FirstKeptEntryID != path[tr.Messages].ID || path[tr.Messages].Message.Text() != first[0].Text() {
		t.Fatalf("trimmed ids %s..%s", tr.FirstDroppedEntryID, tr.FirstKeptEntryID)
	}
	for i, req := range reqs {
		if req.Messages[0].Text() != first[0].Text() {
			t.Fatalf("request %d starts with %.12q, not %.12q", i, req.Messages[0].Text(), first[0].Text())
		}
	}
}

// noteTool answers every call with a result of size characters.
func noteTool(size int) toolstest.Func {
	return toolstest.Func{Name: "note", Fn: func(context.Context, tools.Call) (tools.Result, error) {
		return tools.TextResult(strings.Repeat("r", size)), nil
	}}
}

func TestFailedCompactionTrimsAndAnnounces(t *testing.T) {
	t.Parallel()
	s, leafID := usageSession(t, 30)
	sum := faux.New(faux.Response{Error: "summarizer down"}, faux.Response{Error: "summarizer down"})
	main := faux.New(faux.Text("the answer"))
	cfg := Config{ActiveLeaf: leaf(leafID), Model: ai.Info{ID: "m", Provider: "faux", ContextWindow: 3000},
		Compaction: Compaction{ReserveTokens: 500, KeepRecentTokens: 600}}
	r, err := New(cfg, Deps{Model: summarizer{sum, main}, Session: s})
	if err != nil {
		t.Fatal(err)
	}
	rec := recordContext(r)
	res, err := r.Prompt(t.Context(), ai.UserText("next question", 2))
	if err != nil || res.Reason != loop.ReasonStop {
		t.Fatalf("%v %s", err, res.Reason)
	}
	if len(rec.names) != 3 || rec.names[0] != "start:threshold" || !strings.Contains(rec.names[1], "summarizer down") ||
		rec.names[2] != "trimmed:"+loop.TrimCompactionFailed {
		t.Fatalf("events %v", rec.names)
	}
	if tr := rec.trimmed[0]; !strings.Contains(tr.ErrorMessage, "summarizer down") || tr.Messages == 0 {
		t.Fatalf("trimmed %+v", tr)
	}
	req := main.Requests()[0]
	if len(compactions(s)) != 0 || tokens(req.Messages) > 2500 || req.Messages[len(req.Messages)-1].Text() != "next question" {
		t.Fatalf("%d compactions; request of %d tokens", len(compactions(s)), tokens(req.Messages))
	}
}

// Regression: a long run that had to leave out old turns cut at a
// different place on every request, so its first message, and with it
// the provider's prompt cache, changed at every step. The cut now stays
// while the messages from it fit, and moves in one large step when they
// no longer do.
func TestCutStaysWhileItFits(t *testing.T) {
	t.Parallel()
	s, leafID := usageSession(t, 30)
	m := faux.New()
	for range 9 {
		m.Push(faux.Call("note", `{}`))
	}
	m.Push(faux.Text("done"))
	const limit = 2500
	cfg := Config{ActiveLeaf: leaf(leafID), Model: ai.Info{ID: "m", Provider: "faux", ContextWindow: 3000},
		Compaction: Compaction{Disabled: true, ReserveTokens: 500}}
	r, err := New(cfg, Deps{Model: m, Session: s, Tools: toolstest.Registry(t, noteTool(800))})
	if err != nil {
		t.Fatal(err)
	}
	rec := recordContext(r)
	if _, err := r.Prompt(t.Context(), ai.UserText("next question", 2)); err != nil {
		t.Fatal(err)
	}
	all := r.Messages()
	start := func(req ai.Request) int {
		i := slices.IndexFunc(all, func(m ai.Message) bool { return m.Role == req.Messages[0].Role && m.Text() == req.Messages[0].Text() })
		if i < 0 || !slices.EqualFunc(all[i:i+len(req.Messages)], req.Messages, func(a, b ai.Message) bool { return a.Text() == b.Text() }) {
			t.Fatalf("request %q is not a run of the transcript", texts(req.Messages))
		}
		return i
	}
	reqs := m.Requests()
	moves, stays := 0, 0
	prev := -1
	for i, req := range reqs {
		from, end := start(req), start(req)+len(req.Messages)
		if got := tokens(req.Messages); got > limit {
			t.Fatalf("request %d: %d tokens over the limit", i, got)
		}
		switch {
		case prev < 0:
		case from == prev:
			stays++
		default:
			moves++
			if tokens(all[prev:end]) <= limit {
				t.Fatalf("request %d moved the cut from %d to %d though the old one still fit", i, prev, from)
			}
			if tokens(all[from:end]) > limit*2/3 {
				t.Fatalf("request %d cut to %d tokens: a small step", i, tokens(all[from:end]))
			}
		}
		prev = from
	}
	if len(reqs) != 10 || moves == 0 || stays < moves*2 {
		t.Fatalf("%d requests: the cut moved %d times and stayed %d times", len(reqs), moves, stays)
	}
	if len(rec.trimmed) != 1+moves {
		t.Fatalf("%d context_trimmed events for %d cuts", len(rec.trimmed), 1+moves)
	}
}
