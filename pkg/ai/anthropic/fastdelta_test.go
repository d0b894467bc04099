package anthropic

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"gopi/pkg/ai"
	"gopi/pkg/ai/provider/providertest"
)

// fastDeltaCases are delta events as the API sends them (fast: true) and
// near misses that must take encoding/json's path.
var fastDeltaCases = []struct {
	data string
	fast bool
}{
	{`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}`, true},
	{`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}              }`, true},
	{`{"type":"content_block_delta","index":12,"delta":{"type":"thinking_delta","thinking":"hm\n\"q\" \u00e9 \ud83d\ude00"}}`, true},
	{`{"type":"content_block_delta","index":3,"delta":{"type":"input_json_delta","partial_json":"{\"path\": \"a"}}`, true},
	{`{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":""}}`, true},
	{`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"lone \ud800 surrogate"}}`, true},
	{"{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"bad \xff utf-8\"}}", true},
	{`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a\u2028b</script>"}}`, true},
	// Near misses: encoding/json decides these.
	{`{"type":"content_block_delta","index":01,"delta":{"type":"text_delta","text":"x"}}`, false},
	{`{"type":"content_block_delta","index":-1,"delta":{"type":"text_delta","text":"x"}}`, false},
	{`{"type":"content_block_delta","index":1234567890,"delta":{"type":"text_delta","text":"x"}}`, false},
	{`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x","text":"y"}}`, false},
	{`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"},"index":2}`, false},
	{`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}`, false},
	{`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x" }}`, false},
	{`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a","b":"c"}}`, false},
	{`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a\x"}}`, false},
	{`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":null}}`, false},
	{`{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"sig"}}`, false},
	{`{"type": "content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}}`, false},
	{`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}} x`, false},
	{`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"tab	raw"}}`, false},
}

// checkFastDelta fails when fastDelta takes an event and decodes it in
// any way other than json.Unmarshal does.
func checkFastDelta(t *testing.T, data string) bool {
	t.Helper()
	e, dl, ok := fastDelta(data)
	if !ok {
		return false
	}
	e.Delta = &dl
	var want streamEvent
	if err := json.Unmarshal([]byte(data), &want); err != nil {
		t.Fatalf("fastDelta took %q, which encoding/json rejects: %v", data, err)
	}
	if diff := cmp.Diff(want, e); diff != "" {
		t.Fatalf("fastDelta(%q) differs from json.Unmarshal (-json +fast):\n%s", data, diff)
	}
	return true
}

func TestFastDeltaAgreesWithUnmarshal(t *testing.T) {
	for _, c := range fastDeltaCases {
		if got := checkFastDelta(t, c.data); got != c.fast {
			t.Errorf("fastDelta(%q) took it: %v, want %v", c.data, got, c.fast)
		}
	}
}

func FuzzFastDelta(f *testing.F) {
	for _, c := range fastDeltaCases {
		f.Add(c.data)
	}
	f.Fuzz(func(t *testing.T, data string) { checkFastDelta(t, data) })
}

// TestStreamDeltaForms streams one answer with its deltas in the compact
// form, padded as the API pads some, and with a space after a colon (the
// generic path): every form gives the same events and message.
func TestStreamDeltaForms(t *testing.T) {
	text := strings.Join([]string{
		`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"let me \u00e9 think"}}`,
		`{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Hi \"there\"\n"}}`,
		`{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"bad \ud800 end"}}`,
		`{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"path\":"}}`,
		`{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":" \"a.txt\"}"}}`,
	}, "\n")
	body := func(deltas string) string {
		d := strings.Split(deltas, "\n")
		ev := func(name, data string) string { return "event: " + name + "\ndata: " + data + "\n\n" }
		return ev("message_start", `{"type":"message_start","message":{"usage":{"input_tokens":5,"output_tokens":1}}}`) +
			ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}`) +
			ev("content_block_delta", d[0]) +
			ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"sig"}}`) +
			ev("content_block_stop", `{"type":"content_block_stop","index":0}`) +
			ev("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`) +
			ev("content_block_delta", d[1]) + ev("content_block_delta", d[2]) +
			ev("content_block_stop", `{"type":"content_block_stop","index":1}`) +
			ev("content_block_start", `{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_1","name":"read","input":{}}}`) +
			ev("content_block_delta", d[3]) + ev("content_block_delta", d[4]) +
			ev("content_block_stop", `{"type":"content_block_stop","index":2}`) +
			ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":9}}`) +
			ev("message_stop", `{"type":"message_stop"}`)
	}
	forms := map[string]string{
		"compact": text,
		"padded":  strings.ReplaceAll(text, "}}", "}   }"),
		"spaced":  strings.ReplaceAll(text, `"index":`, `"index": `),
	}
	for name, deltas := range forms {
		for _, d := range strings.Split(deltas, "\n") {
			if fast := checkFastDelta(t, d); fast != (name != "spaced") {
				t.Fatalf("%s: fastDelta took %q: %v", name, d, fast)
			}
		}
	}
	var first []ai.Event
	for _, name := range []string{"compact", "padded", "spaced"} {
		_, m, _ := fixture(t, providertest.SSE(body(forms[name])))
		evs, msg := stream(t, m, nil)
		if msg.Text() != "Hi \"there\"\nbad \ufffd end" || string(msg.Content[2].Arguments) != `{"path": "a.txt"}` || msg.Content[0].Thinking != "let me é think" {
			t.Fatalf("%s: message %+v", name, msg.Content)
		}
		if first == nil {
			first = evs
			continue
		}
		if diff := cmp.Diff(first, evs); diff != "" {
			t.Errorf("%s form: events differ from the compact form's (-compact +%s):\n%s", name, name, diff)
		}
	}
}
