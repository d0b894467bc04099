package ai

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestBuilderLateFields(t *testing.T) {
	var evs []Event
	b := NewBuilder(Info{ID: "m", Provider: "p", API: "a"}, 1, func(e Event) bool { evs = append(evs, e); return true })
	th, _ := b.ThinkingStart()
	b.ThinkingDelta(th, "plan")
	b.SetThinkingSignature(th, "too early") // open: its end sets the signature
	b.ThinkingEnd(th, "reasoning", false)
	call, _ := b.ToolCallStart("c1", "read")
	b.SetExtra(call, "thoughtSignature", json.RawMessage(`"sig"`))
	b.ToolCallDelta(call, `{"path":"a"}`)
	b.ToolCallEnd(call)
	b.SetThinkingSignature(th, `[{"type":"reasoning.text"}]`)
	b.SetThinkingSignature(call, "not thinking")
	b.SetExtra(7, "k", json.RawMessage(`1`))
	msg := b.Done(StopToolUse)

	if got := msg.Content[0].ThinkingSignature; got != `[{"type":"reasoning.text"}]` {
		t.Errorf("thinking signature %q", got)
	}
	if ev := evs[2]; ev.Type != EventThinkingEnd || ev.Block.ThinkingSignature != "reasoning" {
		t.Errorf("thinking end event %s %+v", ev.Type, ev.Block)
	}
	if ev := evs[len(evs)-2]; ev.Type != EventToolCallEnd || string(ev.Block.Extra["thoughtSignature"]) != `"sig"` {
		t.Errorf("tool call end event %s %+v", ev.Type, ev.Block)
	}
	out, err := json.Marshal(msg)
	if err != nil || !strings.Contains(string(out), `"name":"read","arguments":{"path":"a"},"thoughtSignature":"sig"}`) ||
		strings.Contains(string(out), "not thinking") {
		t.Errorf("message %s %v", out, err)
	}
}
