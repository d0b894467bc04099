package openai

import (
	"context"
	"iter"
	"net/http"
	"testing"
	"time"

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
		Retry: provider.Policy{MaxAttempts: 3, Rand: func() float64 { return 0.5 }},
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
