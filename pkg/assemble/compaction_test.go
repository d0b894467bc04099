package assemble_test

import (
	"bytes"
	"testing"

	"gopi/internal/fdcheck"
	"gopi/pkg/assemble"
	"gopi/pkg/runtime"
)

// Want.Compaction replaces the settings' automatic compaction for that
// Runtime and the later ones; a Reopen that fails keeps the one before.
func TestReopenReplacesCompaction(t *testing.T) {
	fdcheck.Check(t)
	var stderr bytes.Buffer
	s := settings(t)
	s.Compaction = runtime.Compaction{ReserveTokens: 1000}
	a, err := assemble.Build(s, env(&stderr))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if a.Compaction() != s.Compaction {
		t.Fatalf("compaction %+v, want the settings' %+v", a.Compaction(), s.Compaction)
	}
	leaf := prompt(t, a, "look around")
	off := runtime.Compaction{Disabled: true, ReserveTokens: 1000}
	if _, err := a.Reopen(assemble.Want{Leaf: leaf, Compaction: &off}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Reopen(assemble.Want{Leaf: leaf}); err != nil || a.Compaction() != off {
		t.Fatalf("a later Reopen: %v, compaction %+v, want %+v", err, a.Compaction(), off)
	}
	on := runtime.Compaction{ReserveTokens: 1000}
	if _, err := a.Reopen(assemble.Want{Leaf: "nosuchentry", Compaction: &on}); err == nil {
		t.Fatal("Reopen at an unknown leaf succeeded")
	}
	if a.Compaction() != off {
		t.Fatalf("after a failed Reopen: compaction %+v, want %+v", a.Compaction(), off)
	}
	dispose(t, a)
}
