package anthropic

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fastEventCases are events as the API sends them (fast: true) and near
// misses that must take encoding/json's path.
var fastEventCases = []struct {
	data string
	fast bool
}{
	{`{"type":"message_start","message":{"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-4-6","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":25,"cache_creation_input_tokens":7,"cache_read_input_tokens":3,"cache_creation":{"ephemeral_5m_input_tokens":4,"ephemeral_1h_input_tokens":3},"output_tokens":1,"service_tier":"standard"}}}`, true},
	{`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`, true},
	{`{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"read","input":{}}}`, true},
	{`{"type":"content_block_start","index":2,"content_block":{"type":"thinking","thinking":"","signature":""}}`, true},
	{`{"type":"content_block_start","index":3,"content_block":{"type":"redacted_thinking","data":"EmwKAhgB"}}`, true},
	{`{"type":"content_block_start","index":4,"content_block":{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query": "x"}}}`, true},
	{`{"type":"content_block_delta","index":2,"delta":{"type":"signature_delta","signature":"EqQB"}}`, true},
	{`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\u00e9 \ud800 x"}}`, true},
	{`{"type":"content_block_stop","index":0}`, true},
	{`{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":15}}`, true},
	{`{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"input_tokens":null,"output_tokens":9,"cache_creation":null}}`, true},
	{`{"type":"message_stop"}`, true},
	{`{"type": "ping"}`, true},
	{` { "type" : "message_stop" , "extra" : [1, {"a": null}] } `, true},
	{`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, true},
	{`{"type":"message_start","message":{"id":"m","usage":null}}`, true},
	{`{"type":"content_block_start","index":0,"content_block":null,"delta":null,"usage":null,"message":null}`, true},
	{`{"type":null,"index":-0}`, true},
	{`{}`, true},
	// Near misses: encoding/json decides these.
	{`{"type":"message_stop","type":"ping"}`, false},
	{`{"Type":"message_stop"}`, false},
	{`{"TYPE":"message_stop"}`, false},
	{`{"typ\u0065":"message_stop"}`, false},
	{"{\"message\":{\"\u212Aey\":1,\"id\":\"x\"},\"type\":\"message_start\"}", true},
	{`{"type":"message_start","message":{"ID":"x"}}`, false},
	{"{\"type\":\"message_delta\",\"u\u017Fage\":{\"output_tokens\":1}}", false},
	{"{\"type\":\"message_start\",\"message\":{\"usage\":{\"cache_creation\":{\"ephemeral_1h_input_to\u212Aens\":2}}}}", false},
	{`{"type":"content_block_stop","index":1.0}`, false},
	{`{"type":"content_block_stop","index":1e2}`, false},
	{`{"type":"content_block_stop","index":null}`, false},
	{`{"type":"content_block_stop","index":"1"}`, false},
	{`{"type":"content_block_stop","index":99999999999999999999}`, false},
	{`{"type":"message_delta","usage":{"output_tokens":1.5}}`, false},
	{`{"type":"message_delta","usage":{"output_tokens":"15"}}`, false},
	{`{"type":"message_delta","usage":{"output_tokens":1,"output_tokens":2}}`, false},
	{`{"type":"message_delta","usage":[]}`, false},
	{`{"type":"message_delta","delta":{"stop_reason":5}}`, false},
	{`{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","input":null}}`, false},
	{`{"type":"message_start","message":{"usage":{"cache_creation":{"Ephemeral_1h_input_tokens":2}}}}`, false},
	{`{"type":5}`, false},
	{`{"type":"message_stop"} {}`, false},
	{`{"type":"message_stop"`, false},
	{`[]`, false},
	{`null`, false},
	{``, false},
	{"{\"type\":\"bad \xff utf-8\"}", true},
	{"{\"type\":\"raw\ttab\"}", false},
}

// checkFastEvent fails when fastEvent takes an event and decodes it in
// any way other than json.Unmarshal does.
func checkFastEvent(t *testing.T, data string) bool {
	t.Helper()
	e, ok := fastEvent(data)
	if !ok {
		return false
	}
	var want streamEvent
	if err := json.Unmarshal([]byte(data), &want); err != nil {
		t.Fatalf("fastEvent took %q, which encoding/json rejects: %v", data, err)
	}
	if diff := cmp.Diff(want, e); diff != "" {
		t.Fatalf("fastEvent(%q) differs from json.Unmarshal (-json +fast):\n%s", data, diff)
	}
	return true
}

func TestFastEventAgreesWithUnmarshal(t *testing.T) {
	for _, c := range fastEventCases {
		if got := checkFastEvent(t, c.data); got != c.fast {
			t.Errorf("fastEvent(%q) took it: %v, want %v", c.data, got, c.fast)
		}
	}
}

func FuzzFastEvent(f *testing.F) {
	for _, c := range fastEventCases {
		f.Add(c.data)
	}
	for _, c := range fastDeltaCases {
		f.Add(c.data)
	}
	f.Fuzz(func(t *testing.T, data string) { checkFastEvent(t, data) })
}
