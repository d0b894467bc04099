package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"strings"
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/ai/faux"
	"gopi/pkg/loop"
	"gopi/pkg/session"
	"gopi/pkg/tools"
)

// childExec runs a child Runtime on the same Tree for every call.
type childExec struct {
	tree  *Tree
	model *faux.Model
	res   *Result
}

func (x childExec) Specs() []ai.ToolSpec {
	return []ai.ToolSpec{{Name: "task", Parameters: json.RawMessage(`{"type":"object"}`)}}
}

func (x childExec) Execute(ctx context.Context, c ai.Content, _ func(tools.Result)) tools.Result {
	child, err := New(Config{Limits: loop.Limits{Tokens: 1000}}, Deps{Model: x.model, Session: session.NewMemoryStore("/proj", session.Options{}),
		Tools: nil, Tree: x.tree, TreeChild: true})
	if err != nil {
		return tools.ErrorResult(err.Error())
	}
	res, _ := child.Prompt(ctx, ai.UserText("child job", 1))
	*x.res = res
	return tools.TextResult("child done")
}

func usage(in int64) *ai.Usage { return &ai.Usage{Input: in, TotalTokens: in} }

// What a child spends counts against the parent's budget as it is spent:
// the child sees the parent's spending (it stops once the tree's budget is
// gone), the parent stops with the budget's reason after the call, and the
// parent's usage includes the child's.
func TestTreeBindsParentAndChild(t *testing.T) {
	t.Parallel()
	parentModel := faux.New(withUsage(faux.Call("task", `{}`), 400),
		faux.Response{Text: "never asked", Usage: usage(1)})
	c1 := withUsage(faux.Call("bash", `{}`), 400)
	c2 := withUsage(faux.Call("bash", `{}`), 400)
	childModel := faux.New(c1, c2, faux.Response{Text: "never asked", Usage: usage(1)})
	tree := NewTree()
	var childRes Result
	parent, err := New(Config{Limits: loop.Limits{Tokens: 1000}}, Deps{Model: parentModel, Session: session.NewMemoryStore("/proj", session.Options{}),
		Tools: childExec{tree: tree, model: childModel, res: &childRes}, Tree: tree})
	if err != nil {
		t.Fatal(err)
	}
	res, err := parent.Prompt(t.Context(), ai.UserText("parent job", 1))
	if err != nil {
		t.Fatal(err)
	}
	// the child: 400 (parent) + 400 + 400 ≥ 1000 after its second answer
	if childRes.Reason != loop.ReasonBudgetTokens || len(childModel.Requests()) != 2 {
		t.Fatalf("child ended %s after %d requests, want budgetTokens after 2", childRes.Reason, len(childModel.Requests()))
	}
	if res.Reason != loop.ReasonBudgetTokens || len(parentModel.Requests()) != 1 {
		t.Fatalf("parent ended %s after %d requests, want budgetTokens after 1", res.Reason, len(parentModel.Requests()))
	}
	if res.Usage.Input != 1200 || childRes.Usage.Input != 800 {
		t.Fatalf("usage: parent %d, child %d; want 1200 (the child's included) and 800", res.Usage.Input, childRes.Usage.Input)
	}
}

func withUsage(r faux.Response, in int64) faux.Response { r.Usage = usage(in); return r }

// An answer that spends the tree's budget cuts short the other requests
// in flight: a sibling's stream ends at once with the budget's error and
// an aborted message saying so, and it counts what it spent before.
func TestTreeBudgetCutsSiblingShort(t *testing.T) {
	t.Parallel()
	tree := NewTree()
	lim := loop.Limits{Tokens: 100}
	a := &member{tree: tree, child: true, limits: lim}
	b := &member{tree: tree, child: true, limits: lim}
	slow := faux.New(faux.Response{Text: strings.Repeat("x", 60), ChunkSize: 1, DelayMs: 1000})
	next, stop := iter.Pull(b.counted(slow).Stream(t.Context(), &ai.Request{}))
	defer stop()
	if e, ok := next(); !ok || e.Type != ai.EventStart {
		t.Fatalf("b's first event %+v, want its start", e)
	}
	for e := range a.counted(faux.New(withUsage(faux.Text("spent"), 150))).Stream(t.Context(), &ai.Request{}) {
		if e.Terminal() && e.Err != nil {
			t.Fatalf("a's own answer: %v", e.Err)
		}
	}
	var last ai.Event
	for e, ok := next(); ok; e, ok = next() {
		last = e
	}
	var be *loop.BudgetError
	if !errors.As(last.Err, &be) || be.Reason != loop.ReasonBudgetTokens || last.Message == nil ||
		last.Message.StopReason != ai.StopAborted || !strings.Contains(last.Message.ErrorMessage, "the answer was cut short") {
		t.Fatalf("b ended with %+v (%v), want the budget's error and an aborted message", last.Message, last.Err)
	}
}
