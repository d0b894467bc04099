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

// TestBuilderResponseFacts pins pi 1.6's responseModel (only a model
// other than the one asked for, the first one given) and rawStopReason
// (the last one given), and that they survive a JSON round trip.
func TestBuilderResponseFacts(t *testing.T) {
	for _, tc := range []struct {
		name     string
		answered []string
		raw      []string
		want     map[string]string
	}{
		{"same model", []string{"m", "m"}, []string{"end_turn"}, map[string]string{"rawStopReason": "end_turn"}},
		{"other model", []string{"", "m2", "m3"}, []string{"length", "stop"}, map[string]string{"responseModel": "m2", "rawStopReason": "stop"}},
		{"nothing", nil, []string{""}, map[string]string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := NewBuilder(Info{ID: "m", Provider: "p", API: "a"}, 1, func(Event) bool { return true })
			for _, m := range tc.answered {
				b.SetResponseModel("m", m)
			}
			for _, r := range tc.raw {
				b.SetRawStopReason(r)
			}
			msg := b.Done(StopStop)
			raw, err := json.Marshal(msg)
			if err != nil {
				t.Fatal(err)
			}
			var back Message
			if err := json.Unmarshal(raw, &back); err != nil {
				t.Fatal(err)
			}
			for _, k := range []string{"responseModel", "rawStopReason"} {
				var got string
				if v, ok := back.Extra[k]; ok {
					_ = json.Unmarshal(v, &got)
				}
				if got != tc.want[k] {
					t.Errorf("%s = %q, want %q (%s)", k, got, tc.want[k], raw)
				}
			}
		})
	}
}

// TestUsageReasoningKept: pi 1.6's usage.reasoning is read and written
// back, in pi's place (after cacheWrite), and absent stays absent.
func TestUsageReasoningKept(t *testing.T) {
	for _, in := range []string{
		`{"input":1,"output":9,"cacheRead":0,"cacheWrite":0,"reasoning":5,"totalTokens":10,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}`,
		`{"input":1,"output":9,"cacheRead":0,"cacheWrite":0,"totalTokens":10,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}`,
	} {
		raw := `{"role":"assistant","content":[],"api":"a","provider":"p","model":"m","usage":` + in + `,"stopReason":"stop","timestamp":1}`
		var m Message
		if err := json.Unmarshal([]byte(raw), &m); err != nil {
			t.Fatal(err)
		}
		out, err := json.Marshal(m.Clone())
		if err != nil || string(out) != raw {
			t.Errorf("round trip:\n got %s %v\nwant %s", out, err, raw)
		}
	}
}
