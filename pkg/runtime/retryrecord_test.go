package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"slices"
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/ai/faux"
	"gopi/pkg/loop"
	"gopi/pkg/session"
)

// retryingModel fails its first attempt of every request and answers on
// the second, as an adapter's retry runner streams it: the first
// attempt's start, retry_start, then the second attempt whole.
type retryingModel struct{ answer string }

func (m retryingModel) Stream(ctx context.Context, req *ai.Request) iter.Seq[ai.Event] {
	return func(yield func(ai.Event) bool) {
		first := ai.NewBuilder(faux.Info, 10, yield)
		if !first.Start() {
			return
		}
		if !yield(ai.Event{Type: ai.EventRetryStart, Retry: &ai.RetryInfo{Attempt: 1, MaxAttempts: 4, ErrorMessage: "overloaded (HTTP 529)"}}) {
			return
		}
		streamText(yield, 20, m.answer)
	}
}

// streamText streams one whole text answer; false when the consumer
// stopped it.
func streamText(yield func(ai.Event) bool, now int64, text string) bool {
	b := ai.NewBuilder(faux.Info, now, yield)
	if !b.Start() {
		return false
	}
	i, ok := b.TextStart()
	if !ok || !b.TextDelta(i, text) || !b.TextEnd(i, "") {
		return false
	}
	b.Done(ai.StopStop)
	return true
}

// A failed attempt that is sent again is written as pi 1.6 writes it:
// the error message, then a context_edit leaving it out, both before the
// answer; the edit is reported (entry_appended, with the failed message
// as written) before the retry's own event. The next request's context
// does not carry the failed attempt, in this process or after a resume.
func TestFailedAttemptIsRecordedAsPiRecordsIt(t *testing.T) {
	t.Parallel()
	s := store(t)
	r, err := New(Config{Model: faux.Info, Thinking: ai.ThinkingLow}, Deps{Model: retryingModel{answer: "the answer"}, Session: s})
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	var appended []agentEvent
	r.Control().Subscribe(func(e agentEvent) {
		switch e.Type {
		case loop.EntryAppended:
			order = append(order, "entry_appended")
			appended = append(appended, e)
		case loop.RetryStart:
			order = append(order, "auto_retry_start")
		}
	})
	res, err := r.Prompt(t.Context(), ai.UserText("hello", 1))
	if final, _ := res.Final(); err != nil || res.Reason != loop.ReasonStop || final.Text() != "the answer" {
		t.Fatalf("%v %s", err, res.Reason)
	}
	if !slices.Equal(order, []string{"entry_appended", "auto_retry_start"}) {
		t.Fatalf("events %v", order)
	}
	entries := s.Entries()
	var kinds []string
	for _, e := range entries {
		k := e.Type
		if e.Message != nil {
			k = e.Message.Role
		}
		kinds = append(kinds, k)
	}
	if !slices.Equal(kinds[len(kinds)-4:], []string{"user", "assistant", "context_edit", "assistant"}) {
		t.Fatalf("entries %v", kinds)
	}
	failed, edit := entries[len(entries)-3], entries[len(entries)-2]
	m := failed.Message
	if m.StopReason != ai.StopError || m.ErrorMessage != "overloaded (HTTP 529)" || len(m.Content) != 0 || m.Timestamp != 10 ||
		string(m.Extra["thinkingLevel"]) != `"low"` {
		t.Fatalf("failed attempt %+v", m)
	}
	if edit.TargetID != failed.ID || *edit.ParentID != failed.ID {
		t.Fatalf("context_edit %+v, failed attempt %s", edit, failed.ID)
	}
	var reported struct {
		Type        string          `json:"type"`
		ID          string          `json:"id"`
		TargetID    string          `json:"targetId"`
		Replacement json.RawMessage `json:"replacement"`
	}
	if len(appended) != 1 || json.Unmarshal(appended[0].Entry, &reported) != nil || reported.ID != edit.ID ||
		reported.TargetID != failed.ID || string(reported.Replacement) != "null" || appended[0].Message.Timestamp != m.Timestamp {
		t.Fatalf("entry_appended %s (message %+v)", appended[0].Entry, appended[0].Message)
	}
	if got := texts(res.New()); !slices.Equal(got, []string{"hello", "the answer"}) {
		t.Fatalf("the run's messages %q", got)
	}

	// The next request leaves the failed attempt out, here and resumed.
	m2 := faux.New(faux.Text("again"), faux.Text("resumed"))
	r2, err := New(Config{Model: faux.Info, ActiveLeaf: leaf(r.Leaf())}, Deps{Model: m2, Session: s})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r2.Prompt(t.Context(), ai.UserText("next", 2)); err != nil {
		t.Fatal(err)
	}
	if got := texts(m2.Requests()[0].Messages); !slices.Equal(got, []string{"hello", "the answer", "next"}) {
		t.Fatalf("resumed request %q", got)
	}
	if got := session.BuildContext(r2.Path(), session.Budget{}).Messages; slices.ContainsFunc(got, func(m ai.Message) bool { return m.StopReason == ai.StopError }) {
		t.Fatal("the context holds the failed attempt")
	}
}

// A failed attempt whose record cannot be written fails the request as a
// session error: the retry is not sent.
func TestFailedAttemptWriteFailurePoisons(t *testing.T) {
	t.Parallel()
	hs := &hookStore{MemoryStore: store(t), fail: func(_ int, e session.Entry) error {
		if e.Type == session.TypeContextEdit {
			return errDisk
		}
		return nil
	}}
	r, err := New(Config{Model: faux.Info}, Deps{Model: retryingModel{answer: "never"}, Session: hs})
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Prompt(t.Context(), ai.UserText("hello", 1))
	poisonedAlike(t, "the prompt", err, errDisk)
	if res.Reason != loop.ReasonError || !errors.Is(res.Err, errDisk) {
		t.Fatalf("result %s %v", res.Reason, res.Err)
	}
	if final, ok := res.Final(); ok && final.Text() == "never" {
		t.Fatal("the retry's answer was taken after the failed write")
	}
}
