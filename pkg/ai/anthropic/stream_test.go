package anthropic

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"gopi/pkg/ai"
	"gopi/pkg/ai/provider/providertest"
)

func TestStreamText(t *testing.T) {
	srv, m, _ := fixture(t, providertest.SSE(providertest.File(t, "testdata/text.sse")))
	evs, msg := stream(t, m, nil)

	want := []ai.EventType{ai.EventStart, ai.EventTextStart, ai.EventTextDelta, ai.EventTextDelta, ai.EventTextEnd, ai.EventDone}
	if diff := cmp.Diff(want, providertest.Types(evs)); diff != "" {
		t.Errorf("event types (-want +got):\n%s", diff)
	}
	if msg.Text() != "Hello, world!" || msg.StopReason != ai.StopStop {
		t.Errorf("message = %q / %s", msg.Text(), msg.StopReason)
	}
	if msg.API != API || msg.Provider != "anthropic" || msg.Model != "claude-sonnet-4-5" || msg.Timestamp != 1_700_000_000_000 {
		t.Errorf("message header = %s %s %s %d", msg.API, msg.Provider, msg.Model, msg.Timestamp)
	}
	u := msg.Usage
	if u.Input != 472 || u.Output != 15 || u.CacheRead != 1024 || u.CacheWrite != 0 || u.TotalTokens != 472+15+1024 {
		t.Errorf("usage = %+v", u)
	}
	wantCost := (472*3 + 15*15 + 1024*0.3) / 1e6
	if d := u.Cost.Total - wantCost; d > 1e-12 || d < -1e-12 {
		t.Errorf("cost = %v, want %v", u.Cost.Total, wantCost)
	}

	req := srv.Requests()[0]
	if req.Path != "/v1/messages" || req.Header.Get("x-api-key") != testKey ||
		req.Header.Get("anthropic-version") != Version || req.Header.Get("content-type") != "application/json" {
		t.Errorf("request %s headers %v", req.Path, req.Header)
	}
}

func TestStreamThinkingRedactedAndTools(t *testing.T) {
	_, m, _ := fixture(t, providertest.SSE(providertest.File(t, "testdata/thinking_tools.sse")))
	evs, msg := stream(t, m, nil)

	if msg.StopReason != ai.StopToolUse {
		t.Fatalf("stop reason = %s", msg.StopReason)
	}
	want := []ai.Content{
		{Type: ai.TypeThinking, Thinking: "I should list the files and read main.go.", ThinkingSignature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"},
		{Type: ai.TypeThinking, Thinking: RedactedThinkingText, ThinkingSignature: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP", Redacted: true},
		{Type: ai.TypeText, Text: "Let me look."},
		{Type: ai.TypeToolCall, ID: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", Name: "ls", Arguments: json.RawMessage(`{"path": "."}`)},
		{Type: ai.TypeToolCall, ID: "toolu_01Bq3rNs2pvQ1wXhZ8e1kLmN", Name: "read", Arguments: json.RawMessage(`{"path":"main.go"}`)},
	}
	if diff := cmp.Diff(want, msg.Content); diff != "" {
		t.Errorf("content (-want +got):\n%s", diff)
	}
	var frags []string
	for _, e := range evs {
		if e.Type == ai.EventToolCallDelta && e.Index == 3 {
			frags = append(frags, e.Delta)
		}
	}
	if !slices.Equal(frags, []string{`{"pa`, `th": ".`, `"}`}) {
		t.Errorf("tool argument fragments = %q", frags)
	}
	if msg.Usage.Output != 89 || msg.Usage.Input != 310 || msg.Usage.CacheWrite != 2048 {
		t.Errorf("usage = %+v (message_delta usage must not reset the rest)", msg.Usage)
	}
	// The toolcall_start event carries the id and name.
	for _, e := range evs {
		if e.Type == ai.EventToolCallStart && (e.Block == nil || !strings.HasPrefix(e.Block.ID, "toolu_")) {
			t.Errorf("toolcall_start without id: %+v", e.Block)
		}
	}
}

// A proxy may send a tool's whole input in content_block_start and no
// deltas; the input must not be lost.
func TestStreamToolInputInStart(t *testing.T) {
	s := "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n" +
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"bash\",\"input\":{\"command\":\"ls\"}}}\n\n" +
		"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
		"event: some_future_event\ndata: {\"type\":\"some_future_event\"}\n\n" +
		"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tokens\":5}}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
	_, m, _ := fixture(t, providertest.SSE(s))
	_, msg := stream(t, m, nil)
	calls := msg.ToolCalls()
	if len(calls) != 1 || string(calls[0].Arguments) != `{"command":"ls"}` {
		t.Fatalf("calls = %+v", calls)
	}
}

// The one-hour part of a cache write is recorded (pi 1.6's cacheWrite1h)
// and priced at twice the input price.
func TestStreamCacheWrite1h(t *testing.T) {
	s := "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1h\",\"usage\":{\"input_tokens\":10,\"output_tokens\":1,\"cache_creation_input_tokens\":3000,\"cache_creation\":{\"ephemeral_5m_input_tokens\":1000,\"ephemeral_1h_input_tokens\":2000}}}}\n\n" +
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"hi\"}}\n\n" +
		"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
		"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":5}}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
	_, m, _ := fixture(t, providertest.SSE(s))
	_, msg := stream(t, m, nil)
	u := msg.Usage
	if u.CacheWrite != 3000 || u.CacheWrite1h == nil || *u.CacheWrite1h != 2000 {
		t.Fatalf("usage = %+v", u)
	}
	want := (1000*sonnet.Prices.CacheWrite + 2000*2*sonnet.Prices.Input) / 1e6
	if math.Abs(u.Cost.CacheWrite-want) > 1e-12 {
		t.Errorf("cache write cost %v, want %v", u.Cost.CacheWrite, want)
	}
	if string(msg.Extra["responseId"]) != `"msg_1h"` {
		t.Errorf("responseId %s", msg.Extra["responseId"])
	}
}
