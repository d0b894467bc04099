package openai

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"gopi/pkg/ai"
	"gopi/pkg/ai/provider"
	"gopi/pkg/ai/provider/providertest"
)

// holdOpen sends prefix and keeps the connection open until the client
// goes away (or a minute passes, so a broken client cannot hang the test
// server), as servers that never send [DONE] nor close do.
func holdOpen(prefix string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, prefix)
		_ = http.NewResponseController(w).Flush()
		select {
		case <-r.Context().Done():
		case <-time.After(time.Minute):
		}
	}
}

// A message is complete when its stream says so, whatever the connection
// does after. The idle timeout is an hour here and the caller gives up
// after 30 seconds: only the finish rule can complete these.
func TestStreamOpenAfterFinish(t *testing.T) {
	text := providertest.File(t, "testdata/text.sse")
	usageAt := strings.Index(text, `data: {"id":"chatcmpl-BxYz1","object":"chat.completion.chunk","created":1752000000,"model":"gpt-4.1-2025-04-14","service_tier":"default","system_fingerprint":"fp_b3f1157249","choices":[],"usage"`)
	doneAt := strings.Index(text, "data: [DONE]")
	tests := []struct {
		name   string
		prefix string
		grace  time.Duration
		output int64
	}{
		// The usage chunk after the finish_reason is the last thing the
		// stream has to say: no wait at all (the grace is an hour).
		{"usage chunk, no [DONE]", text[:doneAt], time.Hour, 12},
		// No usage chunk: the short grace after the finish_reason ends it.
		{"finish_reason only", text[:usageAt], 20 * time.Millisecond, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := providertest.New(t, holdOpen(tt.prefix))
			m := New(Config{Info: gpt41, APIKey: testKey, BaseURL: srv.URL, HTTPClient: srv.Client(),
				IdleTimeout: time.Hour, FinishGrace: tt.grace, Retry: provider.Policy{MaxAttempts: 1}})
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			msg, err := ai.Collect(m.Stream(ctx, &ai.Request{Messages: []ai.Message{ai.UserText("hi", 1)}}))
			if err != nil || msg.StopReason != ai.StopStop || msg.Text() != "Hello, world!" || msg.Usage.Output != tt.output {
				t.Fatalf("stop %s text %q usage %+v err %v", msg.StopReason, msg.Text(), msg.Usage, err)
			}
		})
	}
}
