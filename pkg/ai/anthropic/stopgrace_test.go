package anthropic

import (
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"gopi/pkg/ai"
	"gopi/pkg/ai/provider"
	"gopi/pkg/ai/provider/providertest"
)

// A message is complete at its message_stop, whatever the connection does
// after: a proxy that keeps the stream open costs StopGrace, not the idle
// timeout (an hour here; the caller gives up after 30 seconds, so only the
// grace can complete the stream).
func TestStreamOpenAfterMessageStop(t *testing.T) {
	text := providertest.File(t, "testdata/text.sse")
	hold := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, text)
		_ = http.NewResponseController(w).Flush()
		select {
		case <-r.Context().Done():
		case <-time.After(time.Minute):
		}
	}
	srv := providertest.New(t, hold)
	m := New(Config{Info: sonnet, APIKey: testKey, BaseURL: srv.URL, HTTPClient: srv.Client(),
		IdleTimeout: time.Hour, StopGrace: 20 * time.Millisecond, Retry: provider.Policy{MaxAttempts: 1}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	msg, err := ai.Collect(m.Stream(ctx, &ai.Request{Messages: []ai.Message{ai.UserText("hi", 1)}}))
	if err != nil || msg.StopReason != ai.StopStop || msg.Text() != "Hello, world!" || msg.Usage.Output != 15 {
		t.Fatalf("stop %s text %q usage %+v err %v", msg.StopReason, msg.Text(), msg.Usage, err)
	}
	if ctx.Err() != nil {
		t.Fatal("the stream completed only when the caller gave up, not at its message_stop")
	}
}
