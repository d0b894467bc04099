package session

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gopi/pkg/ai"
)

// brief renders messages as "role: text" lines for comparison.
func brief(ms []ai.Message) string {
	var b strings.Builder
	for _, m := range ms {
		var parts []string
		for _, c := range m.Content {
			switch c.Type {
			case ai.TypeText:
				parts = append(parts, c.Text)
			case ai.TypeToolCall:
				parts = append(parts, "call "+c.Name)
			case ai.TypeThinking:
				parts = append(parts, "thinking")
			}
		}
		fmt.Fprintf(&b, "%s: %s\n", m.Role, strings.Join(parts, " | "))
	}
	return b.String()
}

// Hand-made files in pi's documented format (versions 1, 2, 3) give the
// context pi's buildSessionContext + convertToLlm give.
func TestPiFixtures(t *testing.T) {
	t.Parallel()
	comp := func(s string) string { return CompactionSummaryPrefix + s + CompactionSummarySuffix }
	tests := []struct {
		file, leaf string
		want       string
		state      ModelState
		version    int
	}{
		{"v3.jsonl", "a0000011", "user: " + comp("## Goal\nEdit a.go") + "\n" +
			"user: now edit it\nassistant: call edit\ntoolResult: ok\nuser: and then?\nuser: Remember the tests.\n" +
			"user: Ran `go test`\n```\nFAIL\n```\n\nCommand exited with code 1\nassistant: Tests fail.\n",
			ModelState{"anthropic", "claude-sonnet-4-5", ai.ThinkingMedium}, 3},
		{"v3.jsonl", "a0000015", "user: read a.go\nassistant: thinking | call read\ntoolResult: package a\nassistant: It is package a.\n" +
			"user: " + BranchSummaryPrefix + "Tried editing; tests failed.</summary>\nuser: different approach\n",
			ModelState{"openai", "gpt-5", ai.ThinkingMedium}, 3},
		{"v2.jsonl", "b0000003", "user: hello\nuser: hook says hi\nassistant: hi\n",
			ModelState{"anthropic", "claude-sonnet-4-5", ai.ThinkingOff}, 2},
		{"v1.jsonl", "00000006", "user: " + comp("old stuff") + "\nuser: second\nassistant: two\nuser: third\n",
			ModelState{"anthropic", "claude-sonnet-4-5", ai.ThinkingOff}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.file+"@"+tt.leaf, func(t *testing.T) {
			t.Parallel()
			f, err := ReadFile(filepath.Join("testdata", "pi", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if f.Version != tt.version || f.Header.Version != CurrentVersion {
				t.Errorf("version %d→%d", f.Version, f.Header.Version)
			}
			path, warns, err := PathTo(f.Entries, tt.leaf)
			if err != nil || len(warns) != 0 {
				t.Fatalf("PathTo: %v %v", err, warns)
			}
			got := BuildContext(path, Budget{})
			if b := brief(got.Messages); b != tt.want {
				t.Errorf("context:\n%s\nwant:\n%s", b, tt.want)
			}
			if s := ModelStateOf(path); s != tt.state {
				t.Errorf("model state %+v, want %+v", s, tt.state)
			}
			if s := ModelStateAt(f.Entries, tt.leaf); s != tt.state {
				t.Errorf("model state at the leaf %+v, want %+v", s, tt.state)
			}
			// every entry's model state: the walk from it agrees with its path
			for _, e := range f.Entries {
				p, _, err := PathTo(f.Entries, e.ID)
				if err != nil {
					continue
				}
				if a, b := ModelStateAt(f.Entries, e.ID), ModelStateOf(p); a != b {
					t.Errorf("at %s: walk %+v, path %+v", e.ID, a, b)
				}
			}
		})
	}
}

// Version 1 files are read but not appended to; version 2 files are.
func TestOldVersionsOnDisk(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, name := range []string{"v1.jsonl", "v2.jsonl"} {
		data, _ := os.ReadFile(filepath.Join("testdata", "pi", name))
		os.WriteFile(filepath.Join(dir, name), data, 0o600)
	}
	if _, err := Open(filepath.Join(dir, "v1.jsonl"), Options{}); !errors.Is(err, ErrOldVersion) {
		t.Errorf("v1: %v", err)
	}
	s, err := Open(filepath.Join(dir, "v2.jsonl"), testOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Append(t.Context(), MessageEntry("b0000003", ai.UserText("more", 1))); err != nil {
		t.Fatal(err)
	}
}

func turnMsgs(n int, size int) []Entry {
	var es []Entry
	parent := ""
	add := func(m ai.Message) {
		id := fmt.Sprintf("%08x", len(es)+1)
		es = append(es, Entry{Type: TypeMessage, ID: id, ParentID: Ref(parent), Message: &m})
		parent = id
	}
	text := strings.Repeat("w", size)
	for i := range n {
		add(ai.UserText(fmt.Sprintf("q%d %s", i, text), 1))
		add(ai.Message{Role: ai.RoleAssistant, Content: []ai.Content{ai.ToolCallContent(fmt.Sprint("c", i), "read", nil)}})
		add(ai.Message{Role: ai.RoleToolResult, ToolCallID: fmt.Sprint("c", i), Content: []ai.Content{ai.TextContent(text)}})
		add(ai.Message{Role: ai.RoleAssistant, Content: []ai.Content{ai.TextContent("done")}})
	}
	return es
}

func TestBudgetDropsOldestWholeTurns(t *testing.T) {
	t.Parallel()
	es := turnMsgs(10, 400) // each turn ≈ 100+3+100+1 tokens
	all := BuildContext(es, Budget{})
	if len(all.Messages) != 40 || all.Dropped.Turns != 0 {
		t.Fatalf("unbounded: %d messages, dropped %+v", len(all.Messages), all.Dropped)
	}
	b := Budget{ContextWindow: 1000, ReserveOutput: 100, SafetyMargin: 50}
	got := BuildContext(es, b)
	if got.Tokens > b.Limit() || got.Over {
		t.Fatalf("tokens %d over limit %d", got.Tokens, b.Limit())
	}
	if got.Messages[0].Role != ai.RoleUser || len(got.Messages)%4 != 0 {
		t.Fatalf("kept part does not start at a whole turn: %s", brief(got.Messages))
	}
	if got.Dropped.Turns != 10-len(got.Messages)/4 || got.Dropped.Messages != 40-len(got.Messages) {
		t.Errorf("dropped %+v", got.Dropped)
	}
	if got.Dropped.EntryIDs[0] != "00000001" || got.Sources[0] != fmt.Sprintf("%08x", got.Dropped.Messages+1) {
		t.Errorf("dropped ids %v, sources %v", got.Dropped.EntryIDs, got.Sources)
	}
	tiny := BuildContext(es, Budget{ContextWindow: 10})
	if !tiny.Over || len(tiny.Messages) != 4 {
		t.Errorf("newest turn alone over budget: over=%v %d messages", tiny.Over, len(tiny.Messages))
	}
}

// A compaction summary is kept while old turns after it are dropped, and
// an unanswered tool call (an old crash) does not glue later turns together.
func TestBudgetPinsSummaryAndUnansweredCalls(t *testing.T) {
	t.Parallel()
	es := turnMsgs(6, 400)
	es[2].Message = &ai.Message{Role: ai.RoleUser, Content: []ai.Content{ai.TextContent("interrupted")}} // call c0 never answered
	comp := Entry{Type: TypeCompaction, ID: "cccccccc", ParentID: Ref(es[len(es)-1].ID), Summary: "sum", FirstKeptEntryID: "00000001"}
	es = append(es, comp)
	got := BuildContext(es, Budget{ContextWindow: 500})
	if got.Sources[0] != "cccccccc" || got.Dropped.Turns == 0 {
		t.Fatalf("sources %v dropped %+v", got.Sources, got.Dropped)
	}
	if got.Messages[1].Role != ai.RoleUser {
		t.Errorf("turn boundary broken: %s", brief(got.Messages))
	}
}

// A run's successive requests keep the previous cut while it fits (the
// context's start, which providers cache, stays the same), and a new cut
// leaves out enough that the rest uses at most two-thirds of the limit.
func TestStableContextKeepsItsCut(t *testing.T) {
	t.Parallel()
	es := turnMsgs(10, 400) // turns of ≈ 204 tokens
	b := Budget{ContextWindow: 1000, ReserveOutput: 100}
	first := BuildStableContext(es, b, Cut{})
	if first.Tokens > b.Limit()*2/3 || first.Cut.Index == 0 || first.Cut.ID != first.Sources[0] {
		t.Fatalf("new cut: %d tokens, cut %+v, sources %v", first.Tokens, first.Cut, first.Sources)
	}
	if most := BuildContext(es, b); len(most.Messages) <= len(first.Messages) {
		t.Fatalf("the stable cut keeps %d messages, as many as fit (%d): no room to grow", len(first.Messages), len(most.Messages))
	}
	// The path grows by a turn: the cut stays while it fits, then moves.
	grown := append(slices.Clone(es), turnMsgs(11, 400)[40:]...)
	grown[40].ParentID = Ref(es[39].ID)
	again := BuildStableContext(grown, b, first.Cut)
	if again.Cut != first.Cut || again.Sources[0] != first.Sources[0] || again.Tokens <= first.Tokens {
		t.Fatalf("cut moved while it fit: %+v → %+v", first.Cut, again.Cut)
	}
	for again.Cut == first.Cut {
		n := len(grown)
		grown = append(grown, Entry{Type: TypeMessage, ID: fmt.Sprintf("g%07d", n), ParentID: Ref(grown[n-1].ID),
			Message: &ai.Message{Role: ai.RoleUser, Content: []ai.Content{ai.TextContent(strings.Repeat("x", 400))}}})
		added := EstimateTokens(*grown[n].Message)
		next := BuildStableContext(grown, b, again.Cut)
		if moved := next.Cut != again.Cut; moved == (again.Tokens+added <= b.Limit()) {
			t.Fatalf("%d tokens kept + %d added, limit %d: moved = %v", again.Tokens, added, b.Limit(), moved)
		}
		again = next
	}
	if again.Tokens > b.Limit()*2/3 || again.Cut.Index <= first.Cut.Index {
		t.Fatalf("moved cut: %d tokens, %+v after %+v", again.Tokens, again.Cut, first.Cut)
	}
	// A cut of another base (a compaction came since) is not kept.
	other := first.Cut
	other.Base = "cccccccc"
	if c := BuildStableContext(es, b, other); c.Cut != first.Cut {
		t.Fatalf("a stale cut was kept: %+v", c.Cut)
	}
	// Nothing left out: no cut.
	if c := BuildStableContext(es[:4], b, Cut{}); c.Cut != (Cut{}) || c.Dropped.Messages != 0 {
		t.Fatalf("a context that fits was cut: %+v", c.Cut)
	}
}
