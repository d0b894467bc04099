package runtime

import (
	"context"
	"errors"
	"iter"
	"slices"
	"strings"
	"sync"
	"testing"

	"gopi/pkg/agent"
	"gopi/pkg/ai"
	"gopi/pkg/ai/faux"
	"gopi/pkg/loop"
	"gopi/pkg/session"
	"gopi/pkg/tools/toolstest"
)

// hookStore lets a test decide what each Append (1-based call n) does:
// fail returns the error to give instead of storing, or nil to store.
type hookStore struct {
	*session.MemoryStore
	mu    sync.Mutex
	calls int
	types []string // the entry type of every call, stored or not
	fail  func(n int, e session.Entry) error
}

func (h *hookStore) Append(ctx context.Context, e session.Entry) (session.Entry, error) {
	h.mu.Lock()
	h.calls++
	n := h.calls
	h.types = append(h.types, e.Type)
	h.mu.Unlock()
	if h.fail != nil {
		if err := h.fail(n, e); err != nil {
			return session.Entry{}, err
		}
	}
	return h.MemoryStore.Append(ctx, e)
}

func (h *hookStore) called() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.types)
}

func entryTypes(s session.Store) []string {
	var out []string
	for _, e := range s.Entries() {
		out = append(out, e.Type)
	}
	return out
}

// settingsEntries describes the model_change and thinking_level_change
// entries of a store in order.
func settingsEntries(s session.Store) []string {
	var out []string
	for _, e := range s.Entries() {
		switch e.Type {
		case session.TypeModelChange:
			out = append(out, "model:"+e.Provider+"/"+e.ModelID)
		case session.TypeThinkingLevelChange:
			out = append(out, "thinking:"+e.ThinkingLevel)
		}
	}
	return out
}

// A resumed session records every change of what answers it: another
// model of the same provider, the same model id at another provider, and
// another thinking level (none given is off); nothing when all match.
func TestEverySettingsChangeIsRecorded(t *testing.T) {
	t.Parallel()
	s := store(t)
	prompt := func(info ai.Info, level ai.ThinkingLevel) {
		t.Helper()
		var at *string
		if l := leafOf(s); l != "" {
			at = leaf(l)
		}
		r, err := New(Config{Model: info, Thinking: level, ActiveLeaf: at}, Deps{Model: faux.New(faux.Text("a")).WithInfo(info), Session: s})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Prompt(t.Context(), ai.UserText("q", 1)); err != nil {
			t.Fatal(err)
		}
	}
	a := ai.Info{ID: "claude-a", Provider: "anthropic"}
	b := ai.Info{ID: "claude-b", Provider: "anthropic"}
	bElsewhere := ai.Info{ID: "claude-b", Provider: "proxy"}
	prompt(a, ai.ThinkingHigh)
	prompt(b, ai.ThinkingHigh)          // same provider, another model
	prompt(bElsewhere, ai.ThinkingHigh) // same model id, another provider
	prompt(bElsewhere, "")              // no level: off
	prompt(bElsewhere, ai.ThinkingOff)  // nothing changed
	want := []string{"model:anthropic/claude-a", "thinking:high", "model:anthropic/claude-b", "model:proxy/claude-b", "thinking:off"}
	if got := settingsEntries(s); !slices.Equal(got, want) {
		t.Fatalf("settings entries %v, want %v", got, want)
	}
	if n := len(s.Entries()); n != len(want)+5*2 {
		t.Fatalf("%d entries, want %d", n, len(want)+10)
	}
	// Each settings entry comes before the prompt it applies to.
	if got := entryTypes(s)[:4]; !slices.Equal(got, []string{"model_change", "thinking_level_change", "message", "message"}) {
		t.Fatalf("first entries %v", got)
	}
}

// A Runtime with no model named (no provider) records no model_change,
// and a fresh session whose level is off records no level either.
func TestNoSettingsEntriesWithoutAModelOrLevel(t *testing.T) {
	t.Parallel()
	s := store(t)
	r, err := New(Config{Model: ai.Info{ID: "m"}}, Deps{Model: faux.New(faux.Text("a")), Session: s})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Prompt(t.Context(), ai.UserText("q", 1)); err != nil {
		t.Fatal(err)
	}
	if got := entryTypes(s); !slices.Equal(got, []string{"message", "message"}) {
		t.Fatalf("entries %v", got)
	}
}

func leafOf(s session.Store) string {
	es := s.Entries()
	if len(es) == 0 {
		return ""
	}
	return es[len(es)-1].ID
}

// poisonedAlike checks that err is the Runtime's poison with cause want.
func poisonedAlike(t *testing.T, what string, err error, want error) *PoisonError {
	t.Helper()
	var perr *PoisonError
	if !errors.As(err, &perr) || !errors.Is(err, want) {
		t.Fatalf("%s: %v, want a PoisonError caused by %v", what, err, want)
	}
	if !strings.HasPrefix(err.Error(), "session write failed: ") {
		t.Fatalf("%s: message %q", what, err.Error())
	}
	return perr
}

// A failed write of any entry of a run poisons the Runtime at that entry:
// the prompt returns the cause, the leaf stays on the last entry written,
// the model is not asked (again), nothing more is written, and every later
// Prompt, Compact, Flush and Dispose reports the same cause.
func TestFailedWriteAtEveryEntryPoisons(t *testing.T) {
	t.Parallel()
	info := ai.Info{ID: "m", Provider: "faux"}
	cases := []struct {
		name     string
		failAt   int
		requests int // model requests made
		reason   loop.Reason
		written  []string // entry types in the store afterwards
	}{
		{"model_change", 1, 0, "", nil},
		{"thinking_level_change", 2, 0, "", []string{"model_change"}},
		{"the prompt", 3, 0, loop.ReasonError, []string{"model_change", "thinking_level_change"}},
		{"the tool call", 4, 1, loop.ReasonError, []string{"model_change", "thinking_level_change", "message"}},
		{"the tool result", 5, 1, loop.ReasonError, []string{"model_change", "thinking_level_change", "message", "message"}},
		{"the final answer", 6, 2, loop.ReasonError, []string{"model_change", "thinking_level_change", "message", "message", "message"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hs := &hookStore{MemoryStore: store(t), fail: func(n int, _ session.Entry) error {
				if n == c.failAt {
					return errDisk
				}
				return nil
			}}
			m := faux.New(faux.Call("review_note", `{"note":"n"}`), faux.Text("done"), faux.Text("never"))
			r, err := New(Config{Model: info, Thinking: ai.ThinkingLow}, Deps{Model: m, Session: hs, Tools: toolstest.Registry(t, &reviewNote{})})
			if err != nil {
				t.Fatal(err)
			}
			res, err := r.Prompt(t.Context(), ai.UserText("go", 1))
			cause := poisonedAlike(t, "the prompt", err, errDisk)
			if res.Reason != c.reason {
				t.Fatalf("reason %q, want %q", res.Reason, c.reason)
			}
			if c.reason == loop.ReasonError && !errors.Is(res.Err, errDisk) {
				t.Fatalf("result error %v", res.Err)
			}
			if n := len(m.Requests()); n != c.requests {
				t.Fatalf("%d model requests, want %d", n, c.requests)
			}
			if got := entryTypes(hs); !slices.Equal(got, c.written) {
				t.Fatalf("store holds %v, want %v", got, c.written)
			}
			if hs.calls != c.failAt {
				t.Fatalf("%d appends, want %d (none after the failure)", hs.calls, c.failAt)
			}
			if r.Leaf() != leafOf(hs) || res.Leaf != r.Leaf() {
				t.Fatalf("leaf %q (result %q), want the last entry written %q", r.Leaf(), res.Leaf, leafOf(hs))
			}
			if len(r.Path()) != len(c.written) {
				t.Fatalf("path of %d entries, want %d", len(r.Path()), len(c.written))
			}
			_, err = r.Prompt(t.Context(), ai.UserText("later", 2))
			if got := poisonedAlike(t, "a later prompt", err, errDisk); got != cause {
				t.Fatal("a later prompt reports another cause")
			}
			if _, err := r.Compact(t.Context(), ""); !errors.Is(err, errDisk) {
				t.Fatalf("compact after the failure: %v", err)
			}
			if err := r.Flush(t.Context()); !errors.Is(err, errDisk) {
				t.Fatalf("flush: %v", err)
			}
			if err := r.Dispose(t.Context()); !errors.Is(err, errDisk) {
				t.Fatalf("dispose: %v", err)
			}
			if n := len(m.Requests()); n != c.requests || hs.calls != c.failAt {
				t.Fatalf("after the failure: %d requests, %d appends", n, hs.calls)
			}
		})
	}
}

// A store that reports the session file was replaced under it: the
// entries are gone from the file, so the Runtime has no leaf to offer;
// a file that only grew still holds them, and the leaf stays.
func TestChangedFileLeavesNoLeafOnlyWhenEntriesWereLost(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		change   string
		keepLeaf bool
	}{{session.ChangeReplaced, false}, {session.ChangeDeleted, false}, {session.ChangeGrown, true}} {
		t.Run(c.change, func(t *testing.T) {
			changed := &session.ChangedError{Path: "/s.jsonl", Change: c.change}
			hs := &hookStore{MemoryStore: store(t), fail: func(n int, _ session.Entry) error {
				if n == 2 {
					return changed
				}
				return nil
			}}
			m := faux.New(faux.Text("answer"))
			r, err := New(Config{}, Deps{Model: m, Session: hs})
			if err != nil {
				t.Fatal(err)
			}
			_, err = r.Prompt(t.Context(), ai.UserText("go", 1))
			if !errors.Is(err, session.ErrChanged) {
				t.Fatalf("prompt: %v", err)
			}
			want := ""
			if c.keepLeaf {
				want = hs.Entries()[0].ID
			}
			if r.Leaf() != want {
				t.Fatalf("leaf %q, want %q", r.Leaf(), want)
			}
		})
	}
}

// A store that panics with something other than an error poisons the
// Runtime with a message that shows what it panicked with.
func TestStorePanickingWithAValuePoisons(t *testing.T) {
	t.Parallel()
	hs := &hookStore{MemoryStore: store(t), fail: func(n int, _ session.Entry) error {
		if n == 1 {
			panic("index out of range in the journal")
		}
		return nil
	}}
	m := faux.New(faux.Text("never"))
	r, err := New(Config{}, Deps{Model: m, Session: hs})
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Prompt(t.Context(), ai.UserText("go", 1))
	var perr *PoisonError
	if !errors.As(err, &perr) || err.Error() != "session write failed: the session store panicked: index out of range in the journal" {
		t.Fatalf("prompt: %v", err)
	}
	if len(m.Requests()) != 0 || len(hs.Entries()) != 0 {
		t.Fatalf("%d requests, %d entries", len(m.Requests()), len(hs.Entries()))
	}
}

// A failed write of the compaction entry that runs before a prompt (the
// path is past the threshold) poisons the Runtime before anything else of
// the run is written: the prompt is not written or reported, the model is
// not asked to answer, and the run ends with the session's error.
func TestFailedCompactionWritePoisons(t *testing.T) {
	t.Parallel()
	s, leafID := longSession(t, 10)
	hs := &hookStore{MemoryStore: s, fail: func(_ int, e session.Entry) error {
		if e.Type == session.TypeCompaction {
			return errDisk
		}
		return nil
	}}
	before := len(s.Entries())
	m := faux.New(faux.Text("## Goal\nSUMMARY"), faux.Text("never"))
	cfg := Config{ActiveLeaf: leaf(leafID), Model: ai.Info{ID: "m", Provider: "faux", ContextWindow: 2400},
		Compaction: Compaction{ReserveTokens: 800, KeepRecentTokens: 300}}
	r, err := New(cfg, Deps{Model: m, Session: hs}) // no clock given: the Runtime's own
	if err != nil {
		t.Fatal(err)
	}
	rec := recordContext(r)
	var types []string
	r.Control().Subscribe(func(e agentEvent) { types = append(types, string(e.Type)) })
	res, err := r.Prompt(t.Context(), ai.UserText("next", 2))
	perr := poisonedAlike(t, "the prompt", err, errDisk)
	if res.Reason != loop.ReasonError || !errors.Is(res.Err, errDisk) {
		t.Fatalf("result %s %v", res.Reason, res.Err)
	}
	// The prompt that could not be written is not reported.
	if got := texts(res.New()); len(got) != 0 {
		t.Fatalf("the run's messages %q", got)
	}
	for _, typ := range types {
		if typ == string(loop.MessageStart) || typ == string(loop.MessageEnd) {
			t.Fatalf("events %v: a message was reported after the failed write", types)
		}
	}
	if !slices.Equal(rec.names, []string{"start:threshold", "end:threshold:err=Auto-compaction failed: " + perr.Error()}) {
		t.Fatalf("events %v", rec.names)
	}
	for _, q := range m.Requests() {
		if q.SystemPrompt != session.SummarizationSystemPrompt {
			t.Fatal("the model was asked to answer after the failed write")
		}
	}
	// model_change; the compaction failed, and nothing came after it.
	if got := entryTypes(hs)[before:]; !slices.Equal(got, []string{"model_change"}) {
		t.Fatalf("written %v", got)
	}
	if got := hs.called(); len(got) != 2 || got[1] != session.TypeCompaction {
		t.Fatalf("appends %v: nothing after the failed compaction", got)
	}
}

// Flush and Dispose wait for the accepted work but give up with their
// context; a Flush or Dispose with nothing accepted returns at once.
func TestFlushAndDisposeHonourTheirContext(t *testing.T) {
	t.Parallel()
	r, err := New(Config{}, Deps{Model: faux.New(), Session: store(t)})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Flush(t.Context()); err != nil {
		t.Fatalf("flush with nothing accepted: %v", err)
	}
	if err := r.Dispose(t.Context()); err != nil {
		t.Fatalf("dispose with nothing accepted: %v", err)
	}
	if _, err := r.Prompt(t.Context(), ai.UserText("q", 1)); !errors.Is(err, ErrDisposed) {
		t.Fatalf("prompt after dispose: %v", err)
	}
	release := make(chan struct{})
	gate := &gateModel{inner: faux.New(faux.Text("late")), release: release, entered: make(chan struct{})}
	r, err = New(Config{}, Deps{Model: gate, Session: store(t)})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := r.Prompt(context.Background(), ai.UserText("go", 1)); done <- err }()
	<-gate.entered
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	if err := r.Flush(cancelled); !errors.Is(err, context.Canceled) {
		t.Fatalf("flush with a cancelled context: %v", err)
	}
	if err := r.Dispose(cancelled); !errors.Is(err, context.Canceled) {
		t.Fatalf("dispose with a cancelled context: %v", err)
	}
	if _, err := r.Compact(t.Context(), ""); !errors.Is(err, ErrDisposed) {
		t.Fatalf("compact after dispose: %v", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("the accepted prompt: %v", err)
	}
	if err := r.Dispose(t.Context()); err != nil {
		t.Fatalf("dispose: %v", err)
	}
	if err := r.Flush(t.Context()); err != nil {
		t.Fatalf("flush after the work: %v", err)
	}
}

// gateModel holds every request until release is closed, after saying
// that one arrived.
type gateModel struct {
	inner   ai.Model
	release chan struct{}
	entered chan struct{}
	once    sync.Once
}

func (g *gateModel) Stream(ctx context.Context, req *ai.Request) iter.Seq[ai.Event] {
	g.once.Do(func() { close(g.entered) })
	<-g.release
	return g.inner.Stream(ctx, req)
}

// New refuses to run without a model or a store.
func TestNewNeedsAModelAndAStore(t *testing.T) {
	t.Parallel()
	for _, d := range []Deps{{Session: store(t)}, {Model: faux.New()}, {}} {
		if r, err := New(Config{}, d); err == nil || r != nil {
			t.Fatalf("deps %+v: runtime %v, error %v", d, r, err)
		}
	}
}

// The system prompt is sent as given; a blank one is not sent.
func TestSystemPromptLeavesOutBlankOne(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ prompt, want string }{
		{"BASE\n\nCONTEXT", "BASE\n\nCONTEXT"},
		{"  \n", ""},
		{"", ""},
	} {
		m := faux.New(faux.Text("a"))
		r, err := New(Config{SystemPrompt: c.prompt}, Deps{Model: m, Session: store(t)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Prompt(t.Context(), ai.UserText("q", 1)); err != nil {
			t.Fatal(err)
		}
		if got := m.Requests()[0].SystemPrompt; got != c.want || r.SystemPrompt() != c.want {
			t.Errorf("system prompt %q: sent %q, want %q", c.prompt, got, c.want)
		}
	}
}

// Extensions with no tools wrap nothing: the run has no tools and a tool
// call gets the "no tools" error result.
func TestExtensionsWithoutToolsGiveNoTools(t *testing.T) {
	t.Parallel()
	host := &policy{}
	m := faux.New(faux.Call("review_note", `{"note":"n"}`), faux.Text("ok"))
	r, err := New(Config{}, Deps{Model: m, Session: store(t), Extensions: host})
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Prompt(t.Context(), ai.UserText("go", 1))
	if err != nil || res.Reason != loop.ReasonStop {
		t.Fatalf("%v %s", err, res.Reason)
	}
	if len(m.Requests()[0].Tools) != 0 || len(host.before) != 0 {
		t.Fatalf("tools %v, hooks ran for %v", m.Requests()[0].Tools, host.before)
	}
	if tr := res.New()[2]; !tr.IsError || !strings.Contains(tr.Text(), "no tools are enabled") {
		t.Fatalf("tool result %+v", tr)
	}
}

// What restoring reported stays available, as a copy, as often as asked.
func TestWarningsOfTheRestoredPath(t *testing.T) {
	t.Parallel()
	e := session.MessageEntry("lost0001", ai.UserText("after a lost line", 1))
	e.ID = "kept0001"
	s := readStore{MemoryStore: store(t), entries: []session.Entry{e}}
	r, err := New(Config{ActiveLeaf: leaf("kept0001")}, Deps{Model: faux.New(), Session: s})
	if err != nil {
		t.Fatal(err)
	}
	w := r.Warnings()
	if len(w) != 1 || w[0].Kind != session.WarnGap || w[0].EntryID != "lost0001" {
		t.Fatalf("warnings %+v", w)
	}
	w[0].EntryID = "changed"
	if again := r.Warnings(); len(again) != 1 || again[0].EntryID != "lost0001" {
		t.Fatalf("warnings after changing the copy %+v", again)
	}
	p := r.Path()
	p[0].ID = "changed"
	if r.Path()[0].ID != "kept0001" || r.Leaf() != "kept0001" {
		t.Fatal("the path follows a change to a copy")
	}
}

// readStore is a store whose entries were read from a file that lost a line.
type readStore struct {
	*session.MemoryStore
	entries []session.Entry
}

func (s readStore) Entries() []session.Entry { return s.entries }

// Regression: a prompt with no message wrote the model_change and
// thinking_level_change entries before the Agent refused it.
func TestEmptyPromptWritesNothing(t *testing.T) {
	t.Parallel()
	s := store(t)
	m := faux.New(faux.Text("never"))
	r, err := New(Config{Model: ai.Info{ID: "m", Provider: "faux"}, Thinking: ai.ThinkingHigh}, Deps{Model: m, Session: s})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Prompt(t.Context()); !errors.Is(err, agent.ErrEmptyPrompt) {
		t.Fatalf("empty prompt: %v", err)
	}
	if len(s.Entries()) != 0 || len(m.Requests()) != 0 || r.Leaf() != "" {
		t.Fatalf("%d entries, %d requests, leaf %q", len(s.Entries()), len(m.Requests()), r.Leaf())
	}
	if _, err := r.Prompt(t.Context(), ai.UserText("q", 1)); err != nil {
		t.Fatalf("a prompt after the empty one: %v", err)
	}
}
