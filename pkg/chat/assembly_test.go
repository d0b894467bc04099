package chat

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gopi/pkg/ai"
	"gopi/pkg/assemble"
	"gopi/pkg/assemble/assembletest"
)

// fauxAssembly is an opened Assembly on the faux model in a fresh
// folder, released when the test ends.
func fauxAssembly(t *testing.T) *assemble.Assembly {
	return assembletest.Open(t, assembletest.Settings(t, `[{"text":"hello"}]`))
}

// The Deps over an Assembly: Open is its Reopen (a thinking level at a
// leaf, a new session, a refused model leaving things as they were),
// Tree draws its session, Expand is the one given.
func TestAssemblyDeps(t *testing.T) {
	a := fauxAssembly(t)
	d := AssemblyDeps(a, func(text string) (string, error) { return "expanded " + text, nil })
	var tree bytes.Buffer
	if err := d.Tree(&tree, a.Runtime().Session()); err != nil || tree.String() != "(no entries yet)\n" {
		t.Fatalf("tree of an empty session: %q %v", tree.String(), err)
	}
	res, err := a.Runtime().Prompt(context.Background(), ai.UserText("hi", time.Now().UnixMilli()))
	if err != nil || res.Err != nil {
		t.Fatal(err, res.Err)
	}
	first := a.Runtime()
	o, err := d.Open(Want{Leaf: res.Leaf, Thinking: ai.ThinkingHigh})
	if err != nil {
		t.Fatal(err)
	}
	_ = first.Dispose(context.Background())
	if o.Runtime != a.Runtime() || o.Runtime.Leaf() != res.Leaf || o.Thinking != ai.ThinkingHigh || o.File != a.File() || o.Model.Provider != "faux" {
		t.Fatalf("opened %+v", o)
	}
	tree.Reset()
	if err := d.Tree(&tree, o.Runtime.Session()); err != nil || !strings.Contains(tree.String(), "hi") ||
		!strings.Contains(tree.String(), filepath.Base(a.File())) {
		t.Fatalf("tree: %q %v", tree.String(), err)
	}
	if _, err := d.Open(Want{Model: "nosuch/x"}); err == nil || a.Runtime() != o.Runtime {
		t.Fatalf("a refused model: %v", err)
	}
	file := a.File()
	n, err := d.Open(Want{NewSession: true, Thinking: ai.ThinkingLow})
	if err != nil {
		t.Fatal(err)
	}
	_ = o.Runtime.Dispose(context.Background())
	if n.File == file || n.Runtime.Leaf() != "" || n.Thinking != ai.ThinkingLow {
		t.Fatalf("new session %+v (was %s)", n, file)
	}
	if got, _ := d.Expand("/x"); got != "expanded /x" {
		t.Fatalf("Expand: %q", got)
	}
	if got, err := AssemblyDeps(a, nil).Expand("/x"); got != "/x" || err != nil {
		t.Fatalf("Expand without one: %q %v", got, err)
	}
}

// openedOf is a Runtime with the Assembly's model, file and thinking.
func TestOpenedOfAndDrawTree(t *testing.T) {
	a := fauxAssembly(t)
	o := openedOf(a, a.Runtime())
	if o.Runtime != a.Runtime() || o.File != a.File() || o.Model != a.Model().Info || o.Thinking != a.Thinking() {
		t.Fatalf("%+v", o)
	}
	var broken errWriter
	if err := drawTree(&broken, a.Runtime().Session(), a.File()); err == nil {
		t.Fatal("a failed write was not said")
	}
}

type errWriter struct{}

func (errWriter) Write([]byte) (int, error) { return 0, errors.New("closed") }
