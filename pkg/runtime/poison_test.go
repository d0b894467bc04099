package runtime

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"gopi/pkg/agent"
	"gopi/pkg/ai"
	"gopi/pkg/ai/faux"
	"gopi/pkg/loop"
	"gopi/pkg/session"
	"gopi/pkg/tools/toolstest"
)

type agentEvent = agent.Event

// failingStore fails the n-th Append (1-based) and counts every call.
type failingStore struct {
	*session.MemoryStore
	failAt int
	calls  atomic.Int32
}

var errDisk = errors.New("disk full")

func (f *failingStore) Append(ctx context.Context, e session.Entry) (session.Entry, error) {
	if int(f.calls.Add(1)) == f.failAt {
		return session.Entry{}, errDisk
	}
	return f.MemoryStore.Append(ctx, e)
}

// Lab 13.3 — a failed append poisons the Runtime: that prompt, the queued
// one, later prompts and Flush fail with the same cause, and nothing more
// reaches the model or the store.
func TestFailedAppendPoisonsRuntime(t *testing.T) {
	t.Parallel()
	fs := &failingStore{MemoryStore: store(t), failAt: 3} // model_change, user, then the assistant fails
	m := faux.New(faux.Response{Text: "first answer", DelayMs: 20}, faux.Text("never"), faux.Text("never"))
	r, err := New(Config{Model: faux.Info}, Deps{Model: m, Session: fs})
	if err != nil {
		t.Fatal(err)
	}
	started := firstRunStarted(r)
	var wg sync.WaitGroup
	var err1, err2 error
	var res1 Result
	wg.Add(1)
	go func() { defer wg.Done(); res1, err1 = r.Prompt(context.Background(), ai.UserText("one", 1)) }()
	<-started
	wg.Add(1)
	go func() { defer wg.Done(); _, err2 = r.Prompt(context.Background(), ai.UserText("queued", 2)) }()
	wg.Wait()
	if !errors.Is(err1, errDisk) || !errors.Is(err2, errDisk) {
		t.Fatalf("prompt errors: %v / %v", err1, err2)
	}
	if res1.Reason != loop.ReasonError {
		t.Fatalf("poisoned prompt's reason %s", res1.Reason)
	}
	_, err3 := r.Prompt(t.Context(), ai.UserText("later", 3))
	err4 := r.Flush(t.Context())
	if !errors.Is(err3, errDisk) || !errors.Is(err4, errDisk) {
		t.Fatalf("later prompt %v, flush %v", err3, err4)
	}
	if n := len(m.Requests()); n != 1 {
		t.Fatalf("%d model requests, want 1", n)
	}
	if n := fs.calls.Load(); n != 3 {
		t.Fatalf("%d appends, want 3 (no append after the failure)", n)
	}
	if fs.Entries()[len(fs.Entries())-1].Message.Text() != "one" || r.Leaf() != fs.Entries()[1].ID {
		t.Fatal("the leaf advanced past the failed append")
	}
}

// Lab 13.3 — Dispose refuses new prompts at once, finishes accepted ones,
// and is idempotent.
func TestDisposeFinishesAcceptedWork(t *testing.T) {
	t.Parallel()
	m := faux.New(faux.Response{Text: "one", DelayMs: 30}, faux.Text("two"))
	r, err := New(Config{}, Deps{Model: m, Session: store(t)})
	if err != nil {
		t.Fatal(err)
	}
	started := firstRunStarted(r)
	var wg sync.WaitGroup
	results := make([]Result, 2)
	errs := make([]error, 2)
	wg.Add(1)
	go func() { defer wg.Done(); results[0], errs[0] = r.Prompt(context.Background(), ai.UserText("1", 1)) }()
	<-started
	wg.Add(1)
	go func() { defer wg.Done(); results[1], errs[1] = r.Prompt(context.Background(), ai.UserText("2", 2)) }()
	for r.queued() < 2 { // wait until prompt 2 is accepted
		time.Sleep(time.Millisecond)
	}
	d1 := make(chan error, 1)
	go func() { d1 <- r.Dispose(context.Background()) }()
	for !r.isDisposed() {
		time.Sleep(time.Millisecond)
	}
	if _, err := r.Prompt(t.Context(), ai.UserText("3", 3)); !errors.Is(err, ErrDisposed) {
		t.Fatalf("prompt after dispose: %v", err)
	}
	if err := <-d1; err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if errs[0] != nil || errs[1] != nil || results[1].Reason != loop.ReasonStop {
		t.Fatalf("accepted prompts: %v %v %s", errs[0], errs[1], results[1].Reason)
	}
	if err := r.Dispose(t.Context()); err != nil {
		t.Fatalf("second dispose: %v", err)
	}
	if len(m.Requests()) != 2 {
		t.Fatalf("%d requests", len(m.Requests()))
	}
}

// queued reports how many operations were accepted (for tests).
func (r *Runtime) queued() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.accepted
}

func (r *Runtime) isDisposed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.disposed
}

// Every tool call gets one result, also when the run is aborted mid-batch,
// and every message of the aborted run is in the store.
func TestAbortKeepsSessionPaired(t *testing.T) {
	t.Parallel()
	s := store(t)
	m := faux.New(faux.Response{ToolCalls: []faux.ToolCall{{ID: "c1", Name: "review_note", Arguments: []byte(`{"note":"x"}`)}, {ID: "c2", Name: "nosuch"}}})
	r, err := New(Config{}, Deps{Model: m, Session: s, Tools: toolstest.Registry(t, &reviewNote{})})
	if err != nil {
		t.Fatal(err)
	}
	r.Control().Subscribe(func(e agentEvent) {
		if e.Type == loop.ToolEnd {
			r.Control().Abort()
		}
	})
	res, err := r.Prompt(t.Context(), ai.UserText("go", 1))
	if err != nil || res.Reason != loop.ReasonAborted {
		t.Fatalf("%v %s", err, res.Reason)
	}
	var roles []string
	for _, e := range s.Entries() {
		roles = append(roles, e.Message.Role)
	}
	if strings.Join(roles, ",") != "user,assistant,toolResult,toolResult" {
		t.Fatalf("store %v", roles)
	}
}

// The model in use is recorded before the first message; a resumed session
// with the same model gets no new model_change.
func TestModelAndThinkingRecorded(t *testing.T) {
	t.Parallel()
	s := store(t)
	info := ai.Info{ID: "claude-x", Provider: "anthropic"}
	r, err := New(Config{Model: info, Thinking: ai.ThinkingHigh}, Deps{Model: faux.New(faux.Text("a")).WithInfo(info), Session: s})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Prompt(t.Context(), ai.UserText("q", 1)); err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, e := range s.Entries() {
		types = append(types, e.Type)
	}
	if !slices.Equal(types, []string{"model_change", "thinking_level_change", "message", "message"}) {
		t.Fatalf("entries %v", types)
	}
	if e := s.Entries()[0]; e.Provider != "anthropic" || e.ModelID != "claude-x" {
		t.Fatalf("model_change %+v", e)
	}
	r2, err := New(Config{Model: info, Thinking: ai.ThinkingHigh, ActiveLeaf: leaf(r.Leaf())}, Deps{Model: faux.New(faux.Text("b")).WithInfo(info), Session: s})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r2.Prompt(t.Context(), ai.UserText("q2", 2)); err != nil {
		t.Fatal(err)
	}
	if n := len(s.Entries()); n != 6 {
		t.Fatalf("resume with the same settings wrote %d entries, want 2 more", n-4)
	}
}

// Regression: a prompt cancelled while queued waited for the run ahead of
// it; it now returns at once and the queue keeps its order.
func TestQueuedPromptHonoursItsContext(t *testing.T) {
	m := faux.New(faux.Response{Text: "slow", DelayMs: 200}, faux.Text("third"))
	r, err := New(Config{}, Deps{Model: m, Session: store(t)})
	if err != nil {
		t.Fatal(err)
	}
	started := firstRunStarted(r)
	first := make(chan error, 1)
	go func() { _, err := r.Prompt(context.Background(), ai.UserText("1", 1)); first <- err }()
	<-started
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	if _, err := r.Prompt(ctx, ai.UserText("2", 2)); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("queued prompt: %v", err)
	}
	select {
	case <-first:
		t.Fatal("the cancelled prompt waited for the run ahead of it")
	default:
	}
	res, err := r.Prompt(t.Context(), ai.UserText("3", 3))
	if err != nil || <-first != nil || len(m.Requests()) != 2 || res.New()[0].Text() != "3" {
		t.Fatalf("third prompt: %v, %d requests", err, len(m.Requests()))
	}
}

// panickingStore panics in the n-th Append (1-based) and counts every call.
type panickingStore struct {
	*session.MemoryStore
	panicAt int
	calls   atomic.Int32
}

func (p *panickingStore) Append(ctx context.Context, e session.Entry) (session.Entry, error) {
	if int(p.calls.Add(1)) == p.panicAt {
		panic(errDisk)
	}
	return p.MemoryStore.Append(ctx, e)
}

// A store whose Append panics fails closed exactly like one that returns
// an error: the current prompt, the queued one, later prompts and Flush
// all fail with the same cause, and nothing more reaches the model or
// the store.
func TestPanickingStorePoisonsRuntime(t *testing.T) {
	t.Parallel()
	ps := &panickingStore{MemoryStore: store(t), panicAt: 3} // model_change, user, then the assistant panics
	m := faux.New(faux.Response{Text: "first answer", DelayMs: 20}, faux.Text("never"), faux.Text("never"))
	r, err := New(Config{Model: faux.Info}, Deps{Model: m, Session: ps})
	if err != nil {
		t.Fatal(err)
	}
	started := firstRunStarted(r)
	var wg sync.WaitGroup
	var err1, err2 error
	var res1 Result
	wg.Add(1)
	go func() { defer wg.Done(); res1, err1 = r.Prompt(context.Background(), ai.UserText("one", 1)) }()
	<-started
	wg.Add(1)
	go func() { defer wg.Done(); _, err2 = r.Prompt(context.Background(), ai.UserText("queued", 2)) }()
	wg.Wait()
	_, err3 := r.Prompt(t.Context(), ai.UserText("later", 3))
	err4 := r.Flush(t.Context())
	var cause *PoisonError
	if !errors.As(err1, &cause) || !errors.Is(err1, errDisk) || !strings.Contains(err1.Error(), "panicked") {
		t.Fatalf("the prompt whose write panicked: %v", err1)
	}
	for i, err := range []error{err2, err3, err4} {
		var got *PoisonError
		if !errors.As(err, &got) || got != cause {
			t.Fatalf("error %d is %v, want the same cause %v", i+2, err, cause)
		}
	}
	if res1.Reason != loop.ReasonError || !errors.Is(res1.Err, errDisk) {
		t.Fatalf("poisoned prompt's result: %s %v", res1.Reason, res1.Err)
	}
	if n := len(m.Requests()); n != 1 {
		t.Fatalf("%d model requests, want 1", n)
	}
	if n := ps.calls.Load(); n != 3 {
		t.Fatalf("%d appends, want 3 (no append after the panic)", n)
	}
	if ps.Entries()[len(ps.Entries())-1].Message.Text() != "one" || r.Leaf() != ps.Entries()[1].ID {
		t.Fatal("the leaf advanced past the panicked append")
	}
}
