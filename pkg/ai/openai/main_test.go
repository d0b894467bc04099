package openai

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"gopi/pkg/ai"
	"gopi/pkg/ai/provider"
	"gopi/pkg/ai/provider/providertest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const testKey = "sk-proj-SECRET-test-key-abcdef0123456789"

var gpt41 = ai.Info{ID: "gpt-4.1", Provider: "openai", API: API, ContextWindow: 1047576, MaxOutputTokens: 32768,
	Prices: ai.Prices{Input: 2, Output: 8, CacheRead: 0.5}}

// fixture starts a server with the scripted responses and a model pointed
// at it as if it were api.openai.com (quirks), with recorded sleeps.
func fixture(t *testing.T, info ai.Info, handlers ...http.HandlerFunc) (*providertest.Server, *Model, *providertest.Sleeper) {
	t.Helper()
	srv := providertest.New(t, handlers...)
	sl := &providertest.Sleeper{}
	q := DefaultQuirks(DefaultBaseURL)
	m := New(Config{
		Info: info, APIKey: testKey, BaseURL: srv.URL, HTTPClient: srv.Client(), Quirks: &q,
		Retry: provider.Policy{Rand: func() float64 { return 0.5 }},
		Now:   providertest.FixedNow, Sleep: sl.Sleep, IdleTimeout: 5 * time.Second,
	})
	return srv, m, sl
}

func stream(t *testing.T, m *Model, req *ai.Request) ([]ai.Event, ai.Message) {
	t.Helper()
	if req == nil {
		req = &ai.Request{SystemPrompt: "You are terse.", Messages: []ai.Message{ai.UserText("hi", 1)}}
	}
	return providertest.Collect(t, iter.Seq[ai.Event](m.Stream(context.Background(), req)))
}

func providerError(t *testing.T, evs []ai.Event) *ai.ProviderError {
	t.Helper()
	var pe *ai.ProviderError
	if !errors.As(evs[len(evs)-1].Err, &pe) {
		t.Fatalf("last event error = %v, want *ai.ProviderError", evs[len(evs)-1].Err)
	}
	return pe
}

func assertJSON(t *testing.T, want string, got []byte) {
	t.Helper()
	var w, g any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("want: %v", err)
	}
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("got: %v\n%s", err, got)
	}
	if diff := cmp.Diff(w, g); diff != "" {
		t.Errorf("JSON (-want +got):\n%s", diff)
	}
}

// assertNoKey fails when the API key shows in any error, event or message.
func assertNoKey(t *testing.T, evs []ai.Event) {
	t.Helper()
	for _, e := range evs {
		b, _ := json.Marshal(e.Message)
		s := string(b)
		if e.Err != nil {
			s += e.Err.Error()
		}
		if e.Retry != nil {
			s += e.Retry.ErrorMessage
		}
		if strings.Contains(s, testKey) {
			t.Fatalf("API key leaked in %s event: %s", e.Type, s)
		}
	}
}
