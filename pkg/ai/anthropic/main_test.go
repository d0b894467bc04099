package anthropic

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

const testKey = "sk-ant-api03-SECRET-test-key-0123456789"

var sonnet = ai.Info{
	ID: "claude-sonnet-4-5", Provider: "anthropic", API: API,
	ContextWindow: 200000, MaxOutputTokens: 64000, Reasoning: true, Images: true,
	Prices: ai.Prices{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75},
}

// fixture starts a server with the scripted responses and a model pointed
// at it, with recorded sleeps and deterministic jitter.
func fixture(t *testing.T, handlers ...http.HandlerFunc) (*providertest.Server, *Model, *providertest.Sleeper) {
	t.Helper()
	srv := providertest.New(t, handlers...)
	sl := &providertest.Sleeper{}
	m := New(Config{
		Info: sonnet, APIKey: testKey, BaseURL: srv.URL, HTTPClient: srv.Client(),
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
