package mode

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"gopi/pkg/agent"
	"gopi/pkg/loop"
)

func TestKeyArgumentIsOneSafeLine(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		`{"command":"ls -la"}`:                       ": ls -la",
		`{"command":"echo a\nrm b\u001b[2J"}`:        ": echo a rm b [2J",
		`{"path":"` + strings.Repeat("é", 80) + `"}`: ": " + strings.Repeat("é", 59) + "…",
		`{"other":1}`: "",
		`not json`:    "",
	}
	for in, want := range cases {
		if got := KeyArgument(json.RawMessage(in)); got != want {
			t.Errorf("KeyArgument(%s) = %q, want %q", in, got, want)
		}
	}
}

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
