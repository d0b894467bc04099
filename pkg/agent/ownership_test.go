package agent

import (
	"context"
	"iter"
	"reflect"
	"slices"
	"sync"
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/ai/faux"
)

// reusingModel returns the inner model's answers, then changes every final
// message it returned: right after handing it over, and again at its next
// request. It also keeps each request it got with a copy taken on arrival.
type reusingModel struct {
	inner ai.Model
	mu    sync.Mutex
	last  *ai.Message
	reqs  []*ai.Request
	seen  [][]ai.Message
}

func (m *reusingModel) Stream(ctx context.Context, req *ai.Request) iter.Seq[ai.Event] {
	m.mu.Lock()
	if m.last != nil {
		m.last.Content[0].Text = "changed at the next request"
		m.last.Content = append(m.last.Content, ai.TextContent("appended later"))
	}
	m.reqs, m.seen = append(m.reqs, req), append(m.seen, ai.CloneMessages(req.Messages))
	m.mu.Unlock()
	return func(yield func(ai.Event) bool) {
		for e := range m.inner.Stream(ctx, req) {
			if !yield(e) {
				return
			}
			if e.Type == ai.EventDone {
				e.Message.Content[0].Text = "changed after returning"
				m.mu.Lock()
				m.last = e.Message
				m.mu.Unlock()
			}
		}
	}
}

// Ownership at the model boundary: the assistant message a model returns
// is copied before it enters the transcript, so a model that changes it
// afterwards changes neither the result, the state, the transcript nor the
// next request; and a request lent to a model is never changed by the
// Agent while the model may still hold it.
func TestModelBoundaryOwnership(t *testing.T) {
	t.Parallel()
	m := &reusingModel{inner: faux.New(faux.Text("answer one"), faux.Text("answer two"))}
	a := New(Options{Model: m})
	res1 := mustPrompt(t, a, "q1")
	if f, _ := res1.Final(); f.Text() != "answer one" {
		t.Fatalf("result: %q", f.Text())
	}
	res2 := mustPrompt(t, a, "q2")
	want := []string{"q1", "answer one", "q2", "answer two"}
	for name, got := range map[string][]ai.Message{"result": res2.Messages, "state": a.State().Messages, "transcript": a.Messages()} {
		if !slices.Equal(texts(got), want) || len(got[1].Content) != 1 {
			t.Fatalf("%s: %q", name, texts(got))
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if got := texts(m.seen[1]); !slices.Equal(got, want[:3]) {
		t.Fatalf("second request: %q", got)
	}
	for i, req := range m.reqs {
		if !reflect.DeepEqual(req.Messages, m.seen[i]) {
			t.Fatalf("request %d changed after the model got it: %q, was %q", i, texts(req.Messages), texts(m.seen[i]))
		}
	}
}
