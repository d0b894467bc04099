package runtime

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/ai/faux"
	"gopi/pkg/loop"
	"gopi/pkg/session"
	"gopi/pkg/tools"
)

// gate is a tool that says when it runs and waits to be let go.
type gate struct{ started, release chan struct{} }

func (g gate) Specs() []ai.ToolSpec {
	return []ai.ToolSpec{{Name: "wait", Parameters: json.RawMessage(`{"type":"object"}`)}}
}

func (g gate) Execute(ctx context.Context, _ ai.Content, _ func(tools.Result)) tools.Result {
	close(g.started)
	select {
	case <-g.release:
	case <-ctx.Done():
	}
	return tools.Result{Content: []ai.Content{ai.TextContent("waited")}}
}

// A model switched while a run waits on a tool answers the run's next
// request, at the thinking level asked for; the switch is in the session
// at once, where the run was, and the run's usage is counted per model.
func TestSetModelDuringARunReachesItsNextRequest(t *testing.T) {
	s := store(t)
	infoA := ai.Info{ID: "a", Provider: "faux", API: "faux", ContextWindow: 100_000, Reasoning: true}
	infoB := ai.Info{ID: "b", Provider: "other", API: "faux", ContextWindow: 100_000, Reasoning: true}
	a := faux.New(faux.Call("wait", `{}`), faux.Text("from a")).WithInfo(infoA)
	b := faux.New(faux.Text("from b")).WithInfo(infoB)
	g := gate{started: make(chan struct{}), release: make(chan struct{})}
	r, err := New(Config{Model: infoA, Thinking: ai.ThinkingLow}, Deps{Model: a, Session: s, Tools: g, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Dispose(context.Background())
	type outcome struct {
		res Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := r.Prompt(context.Background(), ai.UserText("go", 1))
		done <- outcome{res, err}
	}()
	<-g.started
	if err := r.SetModel(b, infoB, ai.ThinkingHigh); err != nil {
		t.Fatal(err)
	}
	// Recorded at once, while the tool still runs.
	if st := session.ModelStateOf(r.Path()); st.Provider != "other" || st.ModelID != "b" || st.ThinkingLevel != ai.ThinkingHigh {
		t.Fatalf("during the run the path says %+v, want other/b at high", st)
	}
	close(g.release)
	o := <-done
	if o.err != nil || o.res.Err != nil {
		t.Fatalf("run: %v / %v", o.err, o.res.Err)
	}
	if n := len(a.Requests()); n != 1 {
		t.Fatalf("the first model got %d requests, want 1", n)
	}
	reqs := b.Requests()
	if len(reqs) != 1 || reqs[0].Thinking != ai.ThinkingHigh {
		t.Fatalf("the switched-to model got %d requests (%+v), want 1 at high", len(reqs), reqs)
	}
	last := o.res.Messages[len(o.res.Messages)-1]
	if last.Model != "b" || string(last.Extra["thinkingLevel"]) != `"high"` {
		t.Fatalf("the last answer is %s at %s, want b at high", last.Model, last.Extra["thinkingLevel"])
	}
	if len(o.res.ByModel) != 2 || o.res.ByModel[0].Model != "a" || o.res.ByModel[1].Model != "b" ||
		o.res.ByModel[0].Usage.Output == 0 || o.res.ByModel[1].Usage.Output == 0 {
		t.Fatalf("usage by model: %+v, want a then b, each with its answer", o.res.ByModel)
	}
	// The switch sits between the tool call and its result: the run's
	// next entry followed it, as in pi's file.
	var kinds []string
	for _, e := range r.Path() {
		k := string(e.Type)
		if e.Message != nil {
			k = string(e.Message.Role)
		}
		kinds = append(kinds, k)
	}
	want := []string{"model_change", "thinking_level_change", "user", "assistant", "model_change", "thinking_level_change", "toolResult", "assistant"}
	if !slices.Equal(kinds, want) {
		t.Fatalf("path %v, want %v", kinds, want)
	}
	if r.Model().ID != "b" || r.Thinking() != ai.ThinkingHigh {
		t.Fatalf("after the run: %s at %s, want b at high", r.Model().ID, r.Thinking())
	}
}

// SetThinking alone changes the level of the next request and keeps
// the model; a later run starts at it.
func TestSetThinkingReachesTheNextRun(t *testing.T) {
	m := faux.New(faux.Text("one"), faux.Text("two"))
	r, err := New(Config{Model: faux.Info, Thinking: ai.ThinkingOff}, Deps{Model: m, Session: store(t), Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Dispose(context.Background())
	if _, err := r.Prompt(context.Background(), ai.UserText("one", 1)); err != nil {
		t.Fatal(err)
	}
	if err := r.SetThinking(ai.ThinkingMedium); err != nil {
		t.Fatal(err)
	}
	res, err := r.Prompt(context.Background(), ai.UserText("two", 2))
	if err != nil {
		t.Fatal(err)
	}
	reqs := m.Requests()
	if reqs[1].Thinking != ai.ThinkingMedium || string(res.Messages[len(res.Messages)-1].Extra["thinkingLevel"]) != `"medium"` {
		t.Fatalf("second request at %q, answer marked %s; want medium", reqs[1].Thinking, res.Messages[len(res.Messages)-1].Extra["thinkingLevel"])
	}
	if st := session.ModelStateOf(r.Path()); st.ThinkingLevel != ai.ThinkingMedium || st.ModelID != "faux" {
		t.Fatalf("path says %+v", st)
	}
}

// A model switched to counts in the tree as the first did: a child sees
// what the parent's new model spent.
func TestSetModelCountsInTheTree(t *testing.T) {
	first := faux.New(faux.Text("never asked"))
	switched := faux.New(withUsage(faux.Call("task", `{}`), 400), faux.Response{Text: "never asked", Usage: usage(1)})
	childModel := faux.New(withUsage(faux.Call("bash", `{}`), 400), withUsage(faux.Call("bash", `{}`), 400),
		faux.Response{Text: "never asked", Usage: usage(1)})
	tree := NewTree()
	var childRes Result
	parent, err := New(Config{Limits: loop.Limits{Tokens: 1000}}, Deps{Model: first, Session: session.NewMemoryStore("/proj", session.Options{}),
		Tools: childExec{tree: tree, model: childModel, res: &childRes}, Tree: tree})
	if err != nil {
		t.Fatal(err)
	}
	if err := parent.SetModel(switched, ai.Info{ID: "switched", Provider: "faux"}, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := parent.Prompt(t.Context(), ai.UserText("parent job", 1)); err != nil {
		t.Fatal(err)
	}
	// the child: 400 (the parent's switched model) + 400 + 400 ≥ 1000
	if childRes.Reason != loop.ReasonBudgetTokens || len(childModel.Requests()) != 2 || len(first.Requests()) != 0 {
		t.Fatalf("child ended %s after %d requests (the first model asked %d times), want budgetTokens after 2",
			childRes.Reason, len(childModel.Requests()), len(first.Requests()))
	}
}
