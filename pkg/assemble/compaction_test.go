package assemble_test

import (
	"bytes"
	"strings"
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

// The compaction model is resolved once per Assembly: its note (a model
// the catalog does not know) is said once, however often Reopen builds.
func TestCompactionModelResolvedOnce(t *testing.T) {
	fdcheck.Check(t)
	var stderr bytes.Buffer
	s := settings(t)
	s.CompactionModel = "anthropic/claude-not-in-the-catalog"
	e := env(&stderr)
	e.Environ = append(e.Environ, "ANTHROPIC_API_KEY=sk-test")
	a, err := assemble.Build(s, e)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	leaf := prompt(t, a, "look around")
	for range 2 {
		if _, err := a.Reopen(assemble.Want{Leaf: leaf}); err != nil {
			t.Fatal(err)
		}
	}
	if n := strings.Count(stderr.String(), "claude-not-in-the-catalog"); n != 1 {
		t.Fatalf("the compaction model's note said %d times, want once:\n%s", n, stderr.String())
	}
	dispose(t, a)
}
