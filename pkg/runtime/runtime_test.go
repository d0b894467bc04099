package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"gopi/internal/fdcheck"
	"gopi/pkg/agent"
	"gopi/pkg/ai"
	"gopi/pkg/ai/faux"
	"gopi/pkg/loop"
	"gopi/pkg/session"
	"gopi/pkg/tools"
	"gopi/pkg/tools/toolstest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m, goleak.Cleanup(fdcheck.Main())) }

var clock = func() time.Time { return time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC) }

func store(t *testing.T) *session.MemoryStore {
	t.Helper()
	n := 0
	return session.NewMemoryStore("/proj", session.Options{Now: clock, NewID: func() string { n++; return fmt.Sprintf("e%07d", n) }})
}

// oldSession holds old-user → old-assistant and a sibling branch old-user → left.
func oldSession(t *testing.T) *session.MemoryStore {
	t.Helper()
	s := store(t)
	add := func(id, parent string, m ai.Message) {
		e := session.MessageEntry(parent, m)
		e.ID = id
		if _, err := s.Append(t.Context(), e); err != nil {
			t.Fatal(err)
		}
	}
	add("olduser1", "", ai.UserText("continue checking the parser", 1))
	add("leftans1", "olduser1", assistant("left branch answer"))
	add("oldasst1", "olduser1", assistant("I will look at the current implementation first"))
	return s
}

func assistant(text string) ai.Message {
	return ai.Message{Role: ai.RoleAssistant, Content: []ai.Content{ai.TextContent(text)}, StopReason: ai.StopStop, Provider: "faux", Model: "faux", API: "faux"}
}

func leaf(id string) *string { return &id }

func texts(ms []ai.Message) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Text())
	}
	return out
}

// reviewNote records notes.
type reviewNote struct{ notes []string }

func (r *reviewNote) Spec() ai.ToolSpec {
	return ai.ToolSpec{Name: "review_note", Description: "record a note", Parameters: json.RawMessage(`{"type":"object","properties":{"note":{"type":"string"}},"required":["note"]}`)}
}

func (r *reviewNote) Run(_ context.Context, c tools.Call) (tools.Result, error) {
	var a struct{ Note string }
	_ = json.Unmarshal(c.Args, &a)
	r.notes = append(r.notes, a.Note)
	return tools.TextResult("noted: " + a.Note), nil
}

// policy is an extension host that allows and observes.
type policy struct {
	mu     sync.Mutex
	before []string
	after  []string
	events []loop.EventType
}

func (p *policy) Wrap(next loop.Executor) loop.Executor { return wrapped{p: p, next: next} }

func (p *policy) Notify(_ int, e loop.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.events = append(p.events, e.Type)
}

type wrapped struct {
	p    *policy
	next loop.Executor
}

func (w wrapped) Specs() []ai.ToolSpec { return w.next.Specs() }

func (w wrapped) Execute(ctx context.Context, c ai.Content, u func(tools.Result)) tools.Result {
	w.p.mu.Lock()
	w.p.before = append(w.p.before, c.Name)
	w.p.mu.Unlock()
	res := w.next.Execute(ctx, c, u)
	w.p.mu.Lock()
	w.p.after = append(w.p.after, c.Name)
	w.p.mu.Unlock()
	return res
}

// Lab 13.1 — the four combinations of session and leaf.
func TestLeafChoiceFourCases(t *testing.T) {
	m := faux.New()
	cases := []struct {
		name  string
		store *session.MemoryStore
		leaf  *string
		err   error
		msgs  int
	}{
		{"empty session, no leaf", store(t), nil, nil, 0},
		{"empty session, a leaf", store(t), leaf("abc"), ErrUnknownLeaf, 0},
		{"non-empty session, no leaf", oldSession(t), nil, ErrNoLeaf, 0},
		{"non-empty session, a leaf", oldSession(t), leaf("oldasst1"), nil, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := New(Config{ActiveLeaf: c.leaf}, Deps{Model: m, Session: c.store})
			if c.err != nil {
				if !errors.Is(err, c.err) {
					t.Fatalf("want %v, got %v", c.err, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if n := len(r.Messages()); n != c.msgs {
				t.Fatalf("restored %d messages, want %d", n, c.msgs)
			}
		})
	}
	if _, err := New(Config{ActiveLeaf: leaf("nosuch")}, Deps{Model: m, Session: oldSession(t)}); err == nil || !strings.Contains(err.Error(), "nosuch") {
		t.Fatalf("unknown leaf in a non-empty session: %v", err)
	}
}

// Lab 13.1 — only the chosen branch is restored, as copies; the deps keep
// their identity.
func TestRestoresChosenBranchAsCopies(t *testing.T) {
	s := oldSession(t)
	host := &policy{}
	r, err := New(Config{ActiveLeaf: leaf("oldasst1")}, Deps{Model: faux.New(), Session: s, Extensions: host})
	if err != nil {
		t.Fatal(err)
	}
	if got := texts(r.Messages()); !slices.Equal(got, []string{"continue checking the parser", "I will look at the current implementation first"}) {
		t.Fatalf("restored %q", got)
	}
	s.Entries()[0].Message.Content[0].Text = "mutated in the store"
	if r.Messages()[0].Text() != "continue checking the parser" {
		t.Fatal("the agent's history follows a change to the store's entries")
	}
	if r.Session() != session.Store(s) || r.Extensions() != Extensions(host) {
		t.Fatal("the runtime does not expose the deps it was given")
	}
	if r.Leaf() != "oldasst1" {
		t.Fatalf("leaf %q", r.Leaf())
	}
}

// Lab 13.2 + 13.3 — the opening scenario: resume, two projections, the
// extension around the tool, four entries chained from the old leaf.
func TestPromptProjectsPersistsAndChainsEntries(t *testing.T) {
	s := oldSession(t)
	note := &reviewNote{}
	host := &policy{}
	var onDiskAtFirstRequest int
	m := faux.New(faux.Response{ToolCalls: []faux.ToolCall{{ID: "call1", Name: "review_note", Arguments: json.RawMessage(`{"note":"parser ok"}`)}}}, faux.Text("The parser is fine."))
	model := &hookModel{inner: m, before: func(n int) {
		if n == 1 {
			onDiskAtFirstRequest = len(s.Entries())
		}
	}}
	r, err := New(Config{ActiveLeaf: leaf("oldasst1"), SystemPrompt: "BASE SYSTEM\n\n# Project Context\n\nPROJECT RULE"},
		Deps{Model: model, Session: s, Tools: toolstest.Registry(t, note), Extensions: host, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Prompt(t.Context(), ai.UserText("check the parser and record a conclusion", 2))
	if err != nil || res.Reason != loop.ReasonStop {
		t.Fatalf("prompt: %v %s", err, res.Reason)
	}
	reqs := m.Requests()
	if reqs[0].SystemPrompt != "BASE SYSTEM\n\n# Project Context\n\nPROJECT RULE" {
		t.Fatalf("system prompt %q", reqs[0].SystemPrompt)
	}
	if got := texts(reqs[0].Messages); !slices.Equal(got, []string{"continue checking the parser", "I will look at the current implementation first", "check the parser and record a conclusion"}) {
		t.Fatalf("first request %q", got)
	}
	if n := len(reqs[1].Messages); n != 5 || reqs[1].Messages[4].Role != ai.RoleToolResult {
		t.Fatalf("second request has %d messages", n)
	}
	if onDiskAtFirstRequest != 4 {
		t.Fatalf("entries in the store when the model was first asked: %d, want 4 (the prompt written first)", onDiskAtFirstRequest)
	}
	if !slices.Equal(host.before, []string{"review_note"}) || !slices.Equal(host.after, []string{"review_note"}) || len(note.notes) != 1 {
		t.Fatalf("extension before %v after %v notes %v", host.before, host.after, note.notes)
	}
	entries := s.Entries()
	newOnes := entries[3:]
	if len(newOnes) != 4 {
		t.Fatalf("%d new entries", len(newOnes))
	}
	parent := "oldasst1"
	for i, e := range newOnes {
		if e.Parent() != parent || e.Type != session.TypeMessage {
			t.Fatalf("entry %d: parent %q type %s, want parent %q", i, e.Parent(), e.Type, parent)
		}
		if strings.HasPrefix(e.ID, tempID) {
			t.Fatalf("a projection id was written: %s", e.ID)
		}
		parent = e.ID
	}
	if res.Leaf != parent || r.Leaf() != parent {
		t.Fatalf("leaf %q / %q, want %q", res.Leaf, r.Leaf(), parent)
	}
	if len(host.events) == 0 || host.events[0] != loop.AgentStart || host.events[len(host.events)-1] != agent.RunEnd {
		t.Fatalf("observer saw %v (every event, run_end last)", host.events)
	}
}

// hookModel calls before(n) ahead of the n-th request.
type hookModel struct {
	mu     sync.Mutex
	n      int
	inner  ai.Model
	before func(n int)
}

func (h *hookModel) Stream(ctx context.Context, req *ai.Request) iter.Seq[ai.Event] {
	h.mu.Lock()
	h.n++
	n := h.n
	h.mu.Unlock()
	if h.before != nil {
		h.before(n)
	}
	return h.inner.Stream(ctx, req)
}

// Lab 13.2 — the snapshot is read at each request: a second prompt builds
// on the first one's entries, never on a snapshot captured at creation.
func TestSecondPromptProjectsFromNewLeaf(t *testing.T) {
	s := oldSession(t)
	m := faux.New(faux.Text("one"), faux.Text("two"))
	r, err := New(Config{ActiveLeaf: leaf("oldasst1")}, Deps{Model: m, Session: s})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"first", "second"} {
		if _, err := r.Prompt(t.Context(), ai.UserText(p, 3)); err != nil {
			t.Fatal(err)
		}
	}
	got := texts(m.Requests()[1].Messages)
	if !slices.Equal(got, []string{"continue checking the parser", "I will look at the current implementation first", "first", "one", "second"}) {
		t.Fatalf("second request %q", got)
	}
	if n := len(s.Entries()); n != 3+4 { // 2×(user, assistant); no model named, so no model_change
		t.Fatalf("%d entries", n)
	}
}

// Lab 13.2 — a suffix not yet persisted is projected with temporary ids
// that never collide with the path.
func TestProjectionOfUnpersistedSuffix(t *testing.T) {
	s := store(t)
	e := session.MessageEntry("", ai.UserText("old", 1))
	e.ID = tempID + "0" // a path id that looks like a temporary one
	if _, err := s.Append(t.Context(), e); err != nil {
		t.Fatal(err)
	}
	r, err := New(Config{ActiveLeaf: leaf(e.ID)}, Deps{Model: faux.New(), Session: s})
	if err != nil {
		t.Fatal(err)
	}
	transcript := []ai.Message{ai.UserText("old", 1), ai.UserText("new 1", 2), ai.UserText("new 2", 3)}
	c, _, err := r.projectPath(transcript, session.Cut{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(texts(c.Messages), []string{"old", "new 1", "new 2"}) {
		t.Fatalf("projected %q", texts(c.Messages))
	}
	if c.Sources[1] != "_"+tempID+"0" || c.Sources[2] != tempID+"1" {
		t.Fatalf("temporary ids %v", c.Sources)
	}
	if one, _, err := r.projectPath(transcript[:2], session.Cut{}); err != nil || len(one.Sources) != 2 || one.Sources[1] != "_"+tempID+"0" {
		t.Fatalf("a suffix of one message: ids %v (%v)", one.Sources, err)
	}
	if _, _, err := r.projectPath(transcript[:0], session.Cut{}); err == nil {
		t.Fatal("a transcript shorter than the persisted prefix must be refused")
	}
	if len(s.Entries()) != 1 {
		t.Fatal("projection wrote to the store")
	}
}

// Lab 13.3 — concurrent prompts run in arrival order; each persists only
// its own messages.
func TestConcurrentPromptsAreSerialised(t *testing.T) {
	s := store(t)
	m := faux.New(faux.Response{Text: "answer one", DelayMs: 30}, faux.Text("answer two"))
	r, err := New(Config{}, Deps{Model: m, Session: s})
	if err != nil {
		t.Fatal(err)
	}
	started := firstRunStarted(r)
	var wg sync.WaitGroup
	var res1, res2 Result
	var err1, err2 error
	wg.Add(1)
	go func() { defer wg.Done(); res1, err1 = r.Prompt(context.Background(), ai.UserText("one", 1)) }()
	<-started
	wg.Add(1)
	go func() { defer wg.Done(); res2, err2 = r.Prompt(context.Background(), ai.UserText("two", 2)) }()
	wg.Wait()
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if got := texts(res2.New()); !slices.Equal(got, []string{"two", "answer two"}) || res1.Leaf == res2.Leaf {
		t.Fatalf("second prompt added %q", got)
	}
	var msgs []string
	for _, e := range s.Entries() {
		if e.Type == session.TypeMessage {
			msgs = append(msgs, e.Message.Text())
		}
	}
	if !slices.Equal(msgs, []string{"one", "answer one", "two", "answer two"}) {
		t.Fatalf("store holds %q", msgs)
	}
}

// firstRunStarted is closed when the Runtime's first run has started.
func firstRunStarted(r *Runtime) <-chan struct{} {
	started := make(chan struct{})
	r.Control().Subscribe(func(e agentEvent) {
		if e.Type == loop.AgentStart && e.RunID == 1 {
			close(started)
		}
	})
	return started
}
