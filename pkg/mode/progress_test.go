package mode

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"gopi/pkg/agent"
	"gopi/pkg/loop"
)

func TestProgressTracksParallelTools(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	p := &progress{w: &buf, now: time.Now}
	start := func(id string) {
		p.event(agent.Event{Event: loop.Event{Type: loop.ToolStart, ToolCallID: id, ToolName: "bash", Args: json.RawMessage(`{"command":"sleep 1"}`)}})
	}
	end := func(id string) { p.event(agent.Event{Event: loop.Event{Type: loop.ToolEnd, ToolCallID: id}}) }
	start("a")
	start("b")
	end("a")
	if p.line != "1 tool(s) running" {
		t.Fatalf("after one of two ended: %q", p.line)
	}
	end("b")
	if p.line != "" {
		t.Fatalf("after both ended: %q", p.line)
	}
}
