package responses

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

// The streams under testdata are written from the documented shape of the
// Responses API's streaming events (event names, item and response
// objects, usage), not recorded: the tests never reach the network.

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const testKey = "sk-proj-SECRET-test-key-abcdef0123456789"

var codex = ai.Info{ID: "gpt-5-codex", Provider: "openai", API: API, ContextWindow: 400000, MaxOutputTokens: 128000,
	Prices: ai.Prices{Input: 1.25, Output: 10, CacheRead: 0.125}, Reasoning: true, Images: true}

// fixture starts a server with the scripted responses and a model pointed
// at it, with recorded sleeps.
func fixture(t *testing.T, info ai.Info, handlers ...http.HandlerFunc) (*providertest.Server, *Model, *providertest.Sleeper) {
	t.Helper()
	srv := providertest.New(t, handlers...)
	sl := &providertest.Sleeper{}
	m := New(Config{
		Info: info, APIKey: testKey, BaseURL: srv.URL + "/v1", HTTPClient: srv.Client(),
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
