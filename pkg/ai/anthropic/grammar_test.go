package anthropic

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"gopi/pkg/ai"
	"gopi/pkg/ai/provider/providertest"
)

// A stream that breaks the Messages grammar fails its attempt as a
// retryable error; the retry's good answer is the whole outcome, with
// nothing of the broken attempt in it.
func TestGrammarBreakIsRetried(t *testing.T) {
	tests := []struct{ file, why string }{
		{"grammar_second_message_start.sse", "a second message_start inside one message"},
		{"grammar_delta_unstarted.sse", "content_block_delta for index 0, which was never started"},
		{"grammar_delta_after_stop.sse", "content_block_delta for index 0 after its content_block_stop"},
		{"grammar_start_open_index.sse", "content_block_start at index 0, which was already started"},
		{"grammar_delta_mismatch.sse", "text_delta for the tool_use block at index 1"},
		{"grammar_message_delta_first.sse", "message_delta before message_start"},
		{"grammar_message_stop_first.sse", "message_stop before message_start"},
		{"grammar_after_message_stop.sse", "content_block_start after message_stop"},
		{"grammar_tool_open_at_stop.sse", "message_stop with the block at index 1 still open"},
	}
	good := providertest.File(t, "testdata/text.sse")
	for _, tt := range tests {
		t.Run(strings.TrimSuffix(tt.file, ".sse"), func(t *testing.T) {
			t.Parallel()
			bad := providertest.File(t, "testdata/"+tt.file)
			srv, m, sl := fixture(t, providertest.SSE(bad), providertest.SSE(good))
			evs, msg := stream(t, m, nil)

			if n := len(srv.Requests()); n != 2 || len(sl.Delays) != 1 {
				t.Fatalf("requests %d, sleeps %v: want the broken attempt retried once", n, sl.Delays)
			}
			starts, ends := retries(evs)
			if len(starts) != 1 || !strings.Contains(starts[0].ErrorMessage, "stream grammar: "+tt.why) {
				t.Errorf("retry starts = %+v, want one naming %q", starts, tt.why)
			}
			if len(ends) != 1 || !ends[0].Success {
				t.Errorf("retry ends = %+v", ends)
			}
			want := []ai.Content{ai.TextContent("Hello, world!")}
			if diff := cmp.Diff(want, msg.Content); diff != "" || msg.StopReason != ai.StopStop {
				t.Errorf("final %s content (-want +got):\n%s", msg.StopReason, diff)
			}
			if msg.Usage.Input != 472 || msg.Usage.Output != 15 {
				t.Errorf("usage = %+v, want the good attempt's alone", msg.Usage)
			}
		})
	}
}

// A server that keeps breaking the grammar exhausts the attempts and the
// run fails with the grammar named, never with a merged message.
func TestGrammarBreakExhaustsAttempts(t *testing.T) {
	bad := providertest.SSE(providertest.File(t, "testdata/grammar_tool_open_at_stop.sse"))
	srv, m, _ := fixture(t, bad, bad, bad)
	evs, msg := stream(t, m, nil)
	pe := providertest.ProviderError(t, evs)
	if pe.Class != ai.ClassServer || !strings.Contains(pe.Message, "still open") || msg.StopReason != ai.StopError {
		t.Fatalf("error %+v stop %s", pe, msg.StopReason)
	}
	if len(srv.Requests()) != 3 {
		t.Errorf("requests = %d, want 3", len(srv.Requests()))
	}
	for _, e := range evs {
		if e.Type == ai.EventToolCallEnd {
			t.Errorf("a half-streamed tool call was completed: %+v", e)
		}
	}
}

// Events the grammar does not name (ping, later additions) and delta
// types added later are still ignored.
func TestGrammarIgnoresUnknownEvents(t *testing.T) {
	s := "event: ping\ndata: {\"type\":\"ping\"}\n\n" +
		"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":1}}}\n\n" +
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"server_tool_use\",\"id\":\"srvtoolu_1\",\"name\":\"web_search\",\"input\":{}}}\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{}\"}}\n\n" +
		"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"some_future_delta\",\"x\":1}}\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\",\"text\":\"ok\"}}\n\n" +
		"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}\n\n" +
		"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"}}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n" +
		"event: ping\ndata: {\"type\":\"ping\"}\n\n"
	srv, m, _ := fixture(t, providertest.SSE(s))
	_, msg := stream(t, m, nil)
	if msg.StopReason != ai.StopStop || msg.Text() != "ok" || len(srv.Requests()) != 1 {
		t.Fatalf("final %s %q after %d requests", msg.StopReason, msg.Text(), len(srv.Requests()))
	}
}

// A refusal is the model's answer, not a fault: its explanation is kept as
// the message's text, the stop reason is an error (as pi maps it) naming
// the refusal (ai.ErrRefused, as every adapter marks one), and it is not
// retried.
func TestRefusalKeepsExplanation(t *testing.T) {
	srv, m, _ := fixture(t, providertest.SSE(providertest.File(t, "testdata/refusal.sse")))
	evs, msg := stream(t, m, nil)
	if !strings.HasPrefix(msg.Text(), "I can't help with that request") {
		t.Errorf("text = %q, want the refusal's explanation", msg.Text())
	}
	pe := providertest.ProviderError(t, evs)
	if msg.StopReason != ai.StopError || pe.Retryable || !errors.Is(pe, ai.ErrRefused) || !strings.Contains(msg.ErrorMessage, "stop_reason refusal") {
		t.Errorf("stop %s error %+v", msg.StopReason, pe)
	}
	if len(srv.Requests()) != 1 {
		t.Errorf("requests = %d: a refusal must not be retried", len(srv.Requests()))
	}
}
