package runtime

import (
	"context"
	"iter"
	"slices"
	"strings"
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/ai/faux"
	"gopi/pkg/loop"
	"gopi/pkg/session"
)

// thresholdConfig puts longSession(t, 10) (≈ 2,000 tokens) past pi's
// threshold (2,400 − 800) before any prompt is added.
func thresholdConfig(leafID string) Config {
	return Config{ActiveLeaf: leaf(leafID), Model: ai.Info{ID: "m", Provider: "faux", ContextWindow: 2400},
		Compaction: Compaction{ReserveTokens: 800, KeepRecentTokens: 300}}
}

// eventNames records every event's type, a message's with its role.
func eventNames(r *Runtime) *[]string {
	var names []string
	r.Control().Subscribe(func(e agentEvent) {
		name := string(e.Type)
		if e.Message != nil && (e.Type == loop.MessageStart || e.Type == loop.MessageEnd) {
			name += ":" + string(e.Message.Role)
		}
		names = append(names, name)
	})
	return &names
}

// A path already past the threshold when a prompt comes is compacted
// before the run starts, as pi checks before a prompt: the compaction's
// events come before agent_start, its entry is the prompt's parent, and
// the summary covers the path without the prompt.
func TestCompactionBeforePromptComesFirst(t *testing.T) {
	t.Parallel()
	s, leafID := longSession(t, 10)
	// The cut splits the last turn (keep 300 tokens): the history and the
	// turn's prefix are summarised apart, as pi does.
	sum := faux.New(faux.Text("## Goal\nSUMMARY OF EARLIER WORK"), faux.Text("## Original Request\nPREFIX"))
	main := faux.New(faux.Text("the answer"))
	r, err := New(thresholdConfig(leafID), Deps{Model: summarizer{sum, main}, Session: s})
	if err != nil {
		t.Fatal(err)
	}
	if !session.ShouldCompact(session.ContextTokens(r.Path()), 2400, 800) {
		t.Fatal("the session is not past the threshold: it would not pin the order")
	}
	names := eventNames(r)
	res, err := r.Prompt(t.Context(), ai.UserText("next question", 2))
	if err != nil || res.Reason != loop.ReasonStop {
		t.Fatalf("%v %s", err, res.Reason)
	}
	want := []string{"compaction_start", "compaction_end", "agent_start", "turn_start", "message_start:user", "message_end:user", "message_start:assistant"}
	if len(*names) < len(want) || !slices.Equal((*names)[:len(want)], want) {
		t.Fatalf("events %v, want them to begin %v", *names, want)
	}
	if n := strings.Count(strings.Join(*names, " "), "compaction_start"); n != 1 {
		t.Fatalf("%d compactions: %v", n, *names)
	}
	comps := compactions(s)
	if len(comps) != 1 {
		t.Fatalf("%d compaction entries", len(comps))
	}
	var prompt session.Entry
	for _, e := range s.Entries() {
		if e.Type == session.TypeMessage && e.Message.Text() == "next question" {
			prompt = e
		}
	}
	if prompt.ParentID == nil || *prompt.ParentID != comps[0].ID {
		t.Fatalf("the prompt's parent is %v, want the compaction %q", prompt.ParentID, comps[0].ID)
	}
	for _, q := range sum.Requests() {
		for _, m := range q.Messages {
			if strings.Contains(m.Text(), "next question") {
				t.Fatal("the summary request carries the new prompt")
			}
		}
	}
	req := main.Requests()[0]
	if !strings.Contains(req.Messages[0].Text(), "SUMMARY OF EARLIER WORK") || req.Messages[len(req.Messages)-1].Text() != "next question" {
		t.Fatalf("answer request %q", texts(req.Messages))
	}
}

// A compaction before the prompt that fails is reported with pi's words
// and not asked for again by the first request, which goes out with the
// oldest turns left out and says so.
func TestFailedCompactionBeforePromptIsNotRepeated(t *testing.T) {
	t.Parallel()
	s, leafID := longSession(t, 10)
	sum := faux.New(faux.Response{Error: "summarizer down"}, faux.Response{Error: "summarizer down"}, faux.Text("## Goal\nASKED AGAIN"))
	main := faux.New(faux.Text("the answer"))
	r, err := New(thresholdConfig(leafID), Deps{Model: summarizer{sum, main}, Session: s})
	if err != nil {
		t.Fatal(err)
	}
	rec := recordContext(r)
	res, err := r.Prompt(t.Context(), ai.UserText("next question", 2))
	if err != nil || res.Reason != loop.ReasonStop {
		t.Fatalf("%v %s", err, res.Reason)
	}
	if len(rec.names) != 3 || rec.names[0] != "start:threshold" ||
		!strings.HasPrefix(rec.names[1], "end:threshold:err=Auto-compaction failed: ") || !strings.Contains(rec.names[1], "summarizer down") ||
		rec.names[2] != "trimmed:"+loop.TrimCompactionFailed {
		t.Fatalf("events %v", rec.names)
	}
	if len(compactions(s)) != 0 || len(main.Requests()) != 1 || tokens(main.Requests()[0].Messages) > 1600 {
		t.Fatalf("%d compactions, %d answer requests", len(compactions(s)), len(main.Requests()))
	}
}

// askedModel signals each request, then answers only when its context
// ends: a summary the user gives up on.
type askedModel struct{ asked chan struct{} }

func (m askedModel) Stream(ctx context.Context, req *ai.Request) iter.Seq[ai.Event] {
	return func(yield func(ai.Event) bool) {
		b := ai.NewBuilder(faux.Info, 1, yield)
		if !b.Start() {
			return
		}
		m.asked <- struct{}{}
		<-ctx.Done()
		b.Fail(ctx, ctx.Err())
	}
}

// Cancelling a compaction before the prompt ends it as pi reports an
// aborted one (aborted, no result, no error message), writes no
// compaction, and ends the run aborted without asking for an answer.
func TestAbortedCompactionBeforePrompt(t *testing.T) {
	t.Parallel()
	s, leafID := longSession(t, 10)
	sum := askedModel{asked: make(chan struct{}, 1)}
	main := faux.New(faux.Text("never"))
	r, err := New(thresholdConfig(leafID), Deps{Model: summarizer{sum, main}, Session: s})
	if err != nil {
		t.Fatal(err)
	}
	var ends []loop.CompactionInfo
	r.Control().Subscribe(func(e agentEvent) {
		if e.Type == loop.CompactionEnd {
			ends = append(ends, *e.Compaction)
		}
	})
	ctx, cancel := context.WithCancel(t.Context())
	go func() { <-sum.asked; cancel() }()
	res, err := r.Prompt(ctx, ai.UserText("next question", 2))
	if err != nil || res.Reason != loop.ReasonAborted {
		t.Fatalf("%v %s", err, res.Reason)
	}
	if len(ends) != 1 || !ends[0].Aborted || ends[0].ErrorMessage != "" {
		t.Fatalf("compaction ends %+v", ends)
	}
	if len(compactions(s)) != 0 || len(main.Requests()) != 0 {
		t.Fatalf("%d compactions, %d answer requests", len(compactions(s)), len(main.Requests()))
	}
}

// retryOnce streams a retry of every summary request before its answer,
// as an adapter's retry runner does after an overloaded attempt.
type retryOnce struct{ answer string }

func (m retryOnce) Stream(ctx context.Context, req *ai.Request) iter.Seq[ai.Event] {
	return func(yield func(ai.Event) bool) {
		if !yield(ai.Event{Type: ai.EventRetryStart, Retry: &ai.RetryInfo{Attempt: 1, MaxAttempts: 4, ErrorMessage: "overloaded"}}) {
			return
		}
		if streamText(yield, 1, m.answer) {
			yield(ai.Event{Type: ai.EventRetryEnd, Retry: &ai.RetryInfo{Attempt: 2, MaxAttempts: 4, Success: true}})
		}
	}
}

// A summary request that is sent again is reported inside its compaction
// as pi 1.6 reports it; a split turn's two summary requests, which run at
// once, report theirs one at a time.
func TestSummaryRetriesAreReported(t *testing.T) {
	t.Parallel()
	s, leafID := longSession(t, 10)
	main := faux.New(faux.Text("the answer"))
	r, err := New(thresholdConfig(leafID), Deps{Model: summarizer{retryOnce{"## Goal\nSUMMARY"}, main}, Session: s})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	var reasons []string
	r.Control().Subscribe(func(e agentEvent) {
		switch e.Type {
		case loop.CompactionStart, loop.CompactionEnd, loop.SummaryRetryScheduled, loop.SummaryRetryFinished, loop.AgentStart:
			names = append(names, string(e.Type))
		case loop.SummaryRetryAttemptStart:
			names = append(names, string(e.Type))
			reasons = append(reasons, e.Compaction.Reason)
		}
	})
	if _, err := r.Prompt(t.Context(), ai.UserText("next question", 2)); err != nil {
		t.Fatal(err)
	}
	// Two summary requests (the history and the split turn's prefix).
	count := func(name string) int {
		n := 0
		for _, x := range names {
			if x == name {
				n++
			}
		}
		return n
	}
	if names[0] != "compaction_start" || names[len(names)-2] != "compaction_end" || names[len(names)-1] != "agent_start" ||
		count("summarization_retry_scheduled") != 2 || count("summarization_retry_attempt_start") != 2 || count("summarization_retry_finished") != 2 {
		t.Fatalf("events %v", names)
	}
	for i, n := range names {
		if n == "summarization_retry_scheduled" && names[i+1] != "summarization_retry_attempt_start" {
			t.Fatalf("events %v: a scheduled retry not followed by its attempt", names)
		}
	}
	if !slices.Equal(reasons, []string{"threshold", "threshold"}) {
		t.Fatalf("reasons %v", reasons)
	}
}
