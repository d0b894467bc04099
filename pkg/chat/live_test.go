package chat

import (
	"encoding/json"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"gopi/pkg/agent"
	"gopi/pkg/ai"
	"gopi/pkg/loop"
)

// liveRecorder is a LiveWriter that keeps every live row drawn.
type liveRecorder struct {
	io.Writer
	mu   sync.Mutex
	rows []string
}

func (l *liveRecorder) SetLive(text string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.rows = append(l.rows, text)
}

// The live row is the answer's line still arriving, or the spinner with
// what the chat waits for; it never grows past the terminal's width (a
// wider row wraps, and the chat could no longer draw it in place), and
// it is gone once the run ends.
func TestLiveRowStaysOneRow(t *testing.T) {
	live := &liveRecorder{Writer: io.Discard}
	r := &renderer{scr: &screen{w: live, live: live}, pal: palette{}, width: func() int { return 30 },
		took: func(string) {}, activity: func(string) {}, now: func() time.Time { return time.Time{} }}
	ev := func(e loop.Event) { r.event(agent.Event{Event: e}) }
	ev(loop.Event{Type: loop.AgentStart})
	ev(loop.Event{Type: loop.MessageUpdate, Stream: &ai.Event{Type: ai.EventTextDelta, Delta: "half a\tline"}})
	args, _ := json.Marshal(map[string]string{"command": strings.Repeat("x", 200)})
	ev(loop.Event{Type: loop.MessageUpdate, Stream: &ai.Event{Type: ai.EventTextEnd}})
	ev(loop.Event{Type: loop.ToolStart, ToolCallID: "1", ToolName: "bash", Args: args})
	r.finish()

	live.mu.Lock()
	defer live.mu.Unlock()
	// (the spinner's goroutine may turn it in between: any frame will do)
	thinking := slices.IndexFunc(live.rows, func(s string) bool { return strings.HasSuffix(s, " thinking…") })
	half := slices.Index(live.rows, "half a line")
	if thinking < 0 || half < thinking {
		t.Fatalf("live rows %q: want the spinner saying thinking…, then the line arriving", live.rows)
	}
	var tool string
	for _, row := range live.rows {
		if n := utf8.RuneCountInString(row); n > 30 {
			t.Errorf("live row %q is %d wide, the terminal 30", row, n)
		}
		if strings.Contains(row, "bash: xxx") {
			tool = row
		}
	}
	if tool == "" {
		t.Errorf("no spinner named the tool: %q", live.rows)
	}
	if last := live.rows[len(live.rows)-1]; last != "" {
		t.Errorf("the live row stays after the run: %q", last)
	}
}

// A task call's child run shows under the call: each of its tool calls as
// it ends, indented, and what it runs in the live row.
func TestChatShowsSubagentProgress(t *testing.T) {
	live := &liveRecorder{Writer: io.Discard}
	var out strings.Builder
	r := &renderer{scr: &screen{w: &out, live: live}, pal: palette{}, width: func() int { return 80 },
		took: func(string) {}, activity: func(string) {}, now: func() time.Time { return time.Time{} }}
	ev := func(e loop.Event) { r.event(agent.Event{Event: e}) }
	args := json.RawMessage(`{"description":"scan","prompt":"scan the tree"}`)
	update := func(child string) {
		ev(loop.Event{Type: loop.ToolUpdate, ToolCallID: "t1", ToolName: "task", Args: args,
			Result: &loop.ToolOutput{Details: json.RawMessage(`{"subagent":{"sessionId":"s"},"event":` + child + `}`)}})
	}
	ev(loop.Event{Type: loop.AgentStart})
	ev(loop.Event{Type: loop.ToolStart, ToolCallID: "t1", ToolName: "task", Args: args})
	update(`{"type":"tool_execution_start","toolCallId":"c1","toolName":"bash","args":{"command":"ls"}}`)
	update(`{"type":"tool_execution_end","toolCallId":"c1","toolName":"bash","isError":false}`)
	update(`{"type":"tool_execution_end","toolCallId":"c2","toolName":"read","isError":true}`)
	r.finish()
	if got := out.String(); !strings.Contains(got, "  ↳ scan: ✓ bash\n") || !strings.Contains(got, "  ↳ scan: ✗ read\n") {
		t.Errorf("chat output %q: want the child's calls under the task line", got)
	}
	live.mu.Lock()
	defer live.mu.Unlock()
	if !slices.ContainsFunc(live.rows, func(s string) bool { return strings.Contains(s, "task scan: bash") }) {
		t.Errorf("live rows %q: want the child's running call", live.rows)
	}
}
