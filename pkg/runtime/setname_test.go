package runtime

import (
	"context"
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/ai/faux"
	"gopi/pkg/session"
)

// SetName appends a session_info entry under the leaf once the
// operations before it ended, and the leaf moves to it; Name reads it
// from the path, and a configured SessionName no longer overrides it.
func TestSetNameIsAnEntryOnThePath(t *testing.T) {
	st := store(t)
	rt, err := New(Config{Model: faux.Info, SessionName: "configured"}, Deps{Model: faux.New(faux.Text("one"), faux.Text("two")), Session: st})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rt.Prompt(context.Background(), ai.UserText("hi", 1)); err != nil {
		t.Fatal(err)
	}
	if rt.Name() != "configured" {
		t.Fatalf("name after the first prompt %q", rt.Name())
	}
	before := rt.Leaf()
	e, err := rt.SetName(context.Background(), "mine")
	if err != nil {
		t.Fatal(err)
	}
	if e.Type != session.TypeSessionInfo || e.Parent() != before || rt.Leaf() != e.ID || rt.Name() != "mine" {
		t.Fatalf("entry %+v, leaf %s (was %s), name %q", e, rt.Leaf(), before, rt.Name())
	}
	if _, err := rt.Prompt(context.Background(), ai.UserText("again", 2)); err != nil {
		t.Fatal(err)
	}
	if rt.Name() != "mine" {
		t.Fatalf("a later prompt renamed the session to %q", rt.Name())
	}
	n := 0
	for _, e := range st.Entries() {
		if e.Type == session.TypeSessionInfo {
			n++
		}
	}
	if n != 2 {
		t.Fatalf("%d session_info entries, want 2 (configured, mine)", n)
	}
	_ = rt.Dispose(context.Background())
	if _, err := rt.SetName(context.Background(), "late"); err != ErrDisposed {
		t.Fatalf("SetName after Dispose: %v", err)
	}
}
