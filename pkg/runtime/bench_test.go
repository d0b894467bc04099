package runtime

import (
	"context"
	"fmt"
	"iter"
	"strings"
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/session"
)

// benchSession is scripts/gensession's session in memory: 10,000 entries
// of about 2 KB (user prompt, assistant tool call, tool result, answer),
// every answer reporting 1,050 tokens of usage, so pi's usage count stays
// far below the 200,000-token window while the path itself does not fit.
func benchSession(b *testing.B) (*session.MemoryStore, string) {
	b.Helper()
	s := session.NewMemoryStore("/bench", session.Options{})
	filler := strings.Repeat("lorem ipsum dolor sit amet ", 78)
	usage := ai.Usage{Input: 1000, Output: 50, TotalTokens: 1050}
	parent := ""
	for i := range 10_000 {
		var m ai.Message
		switch i % 4 {
		case 0:
			m = ai.UserText(fmt.Sprintf("step %d: %s", i, filler), 1)
		case 1:
			m = ai.Message{Role: ai.RoleAssistant, Content: []ai.Content{ai.TextContent(filler[:200]),
				ai.ToolCallContent(fmt.Sprint("call_", i), "bash", []byte(`{"command":"ls -la"}`))},
				API: "anthropic-messages", Provider: "anthropic", Model: "claude-opus-4-6", Usage: usage, StopReason: ai.StopToolUse}
		case 2:
			m = ai.Message{Role: ai.RoleToolResult, ToolCallID: fmt.Sprint("call_", i-1), ToolName: "bash", Content: []ai.Content{ai.TextContent(filler)}}
		default:
			m = ai.Message{Role: ai.RoleAssistant, Content: []ai.Content{ai.TextContent(filler)},
				API: "anthropic-messages", Provider: "anthropic", Model: "claude-opus-4-6", Usage: usage, StopReason: ai.StopStop}
		}
		e, err := s.Append(context.Background(), session.MessageEntry(parent, m))
		if err != nil {
			b.Fatal(err)
		}
		parent = e.ID
	}
	return s, parent
}

// benchResume restores the path to leaf and runs one prompt against a
// model that answers at once; every iteration is a new branch of leaf.
func benchResume(b *testing.B, c Compaction) {
	s, leafID := benchSession(b)
	b.ReportAllocs()
	for b.Loop() {
		cfg := Config{ActiveLeaf: leaf(leafID), Model: ai.Info{ID: "m", Provider: "faux", ContextWindow: 200_000}, Compaction: c}
		r, err := New(cfg, Deps{Model: answerer{}, Session: s})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := r.Prompt(context.Background(), ai.UserText("one more", 2)); err != nil {
			b.Fatal(err)
		}
	}
}

// answerer answers every request at once without looking at it, as
// scripts/fakeserver does, so that the figures are the Runtime's.
type answerer struct{}

func (answerer) Stream(_ context.Context, _ *ai.Request) iter.Seq[ai.Event] {
	return func(yield func(ai.Event) bool) {
		b := ai.NewBuilder(ai.Info{ID: "m", Provider: "faux", API: "faux"}, 1, yield)
		if !b.Start() {
			return
		}
		if i, ok := b.TextStart(); !ok || !b.TextDelta(i, "Done.") || !b.TextEnd(i, "") {
			return
		}
		b.Done(ai.StopStop)
	}
}

// Resume a 10,000-entry session for one more turn, compaction off: the
// oldest turns are left out to fit the window.
func BenchmarkResumeTrimmed(b *testing.B) { benchResume(b, Compaction{Disabled: true}) }

// Resume a 10,000-entry session for one more turn with compaction on
// (the summary request goes to a model that answers at once).
func BenchmarkResumeCompacted(b *testing.B) { benchResume(b, Compaction{}) }
