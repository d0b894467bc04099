package responses

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/ai/provider/providertest"
)

// A refusal content part is a refused answer (ai.ErrRefused), whether
// its text streams as response.refusal.delta or comes only in the done
// item: the message ends as pi ends it (stop reason error), the
// refusal's text kept, and the request is not sent again. The content
// filter's incomplete response is one too.
func TestRefusals(t *testing.T) {
	full := providertest.File(t, "testdata/refusal.sse")
	noDeltas := regexp.MustCompile(`(?m)^event: response\.refusal\.delta\ndata: .*\n\n`).ReplaceAllString(full, "")
	if noDeltas == full {
		t.Fatal("the recording has no refusal deltas")
	}
	// A server that sends no output_item.done: only the deltas say it.
	noDone := regexp.MustCompile(`(?m)^event: response\.output_item\.done\ndata: .*\n\n`).ReplaceAllString(full, "")
	if noDone == full {
		t.Fatal("the recording has no output_item.done")
	}
	tests := []struct {
		name, body, text, says string
	}{
		{"refusal deltas", full, "I'm sorry, but I can't help with that.", "a refusal content part"},
		{"refusal deltas only", noDone, "I'm sorry, but I can't help with that.", "a refusal content part"},
		{"refusal part only", noDeltas, "I'm sorry, but I can't help with that.", "a refusal content part"},
		{"content filter", incomplete("content_filter"), "Partial", "content filter"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, m, _ := fixture(t, codex, providertest.SSE(tt.body))
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

// An answer cut for a reason other than the filter is an error, not a
// refusal.
func TestIncompleteIsNoRefusal(t *testing.T) {
	_, m, _ := fixture(t, codex, providertest.SSE(incomplete("something_new")))
	evs, _ := stream(t, m, nil)
	if pe := providertest.ProviderError(t, evs); errors.Is(pe, ai.ErrRefused) {
		t.Errorf("error %+v is a refusal", pe)
	}
}
