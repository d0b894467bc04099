package openai

import (
	"errors"
	"strings"
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/ai/provider/providertest"
)

// A refusal, in either of OpenAI's words, is a refused answer
// (ai.ErrRefused): the message ends as pi ends it (stop reason error,
// the cause as its error), the text the model gave is kept, and the
// request is not sent again.
func TestRefusals(t *testing.T) {
	tests := []struct {
		name, file, text, says string
	}{
		// A refusal field in the deltas (structured outputs), with
		// finish_reason stop.
		{"refusal field", "testdata/refusal.sse", "I'm sorry, but I can't help with that.", "a refusal in the message"},
		// Azure's filter stops the answer: finish_reason content_filter.
		{"content filter", "testdata/azure_content_filter.sse", "Step one:", "finish_reason content_filter"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, m, _ := fixture(t, gpt41, providertest.SSE(providertest.File(t, tt.file)))
			evs, msg := stream(t, m, nil)
			pe := providertest.ProviderError(t, evs)
			if !errors.Is(pe, ai.ErrRefused) || pe.Retryable || !strings.Contains(pe.Message, tt.says) {
				t.Errorf("error %+v, want a refusal saying %q", pe, tt.says)
			}
			if msg.StopReason != ai.StopError || msg.Text() != tt.text || !strings.Contains(msg.ErrorMessage, tt.says) {
				t.Errorf("stop %s text %q error %q", msg.StopReason, msg.Text(), msg.ErrorMessage)
			}
			if len(srv.Requests()) != 1 {
				t.Errorf("requests = %d: a refusal must not be retried", len(srv.Requests()))
			}
		})
	}
}

// "refusal": null and "" (an ordinary answer's first delta) are no
// refusal.
func TestEmptyRefusalIsAnAnswer(t *testing.T) {
	text := providertest.File(t, "testdata/text.sse")
	for _, body := range []string{text, strings.Replace(text, `"refusal":null`, `"refusal":""`, 1)} {
		_, m, _ := fixture(t, gpt41, providertest.SSE(body))
		_, msg := stream(t, m, nil)
		if msg.StopReason != ai.StopStop || msg.Text() != "Hello, world!" {
			t.Fatalf("stop %s text %q error %q", msg.StopReason, msg.Text(), msg.ErrorMessage)
		}
	}
}
