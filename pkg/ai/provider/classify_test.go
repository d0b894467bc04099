package provider_test

import (
	"net/http"
	"testing"
	"time"

	"gopi/pkg/ai"
	"gopi/pkg/ai/provider"
)

type classCase struct {
	name      string
	status    int
	e         provider.APIError
	class     ai.Class
	retryable bool
}

// statusOnly is every status the classification distinguishes, answered
// with no body and no header: what a proxy or a load balancer sends.
var statusOnly = []classCase{
	{"400", 400, provider.APIError{}, ai.ClassServer, false},
	{"401", 401, provider.APIError{}, ai.ClassAuth, false},
	{"402", 402, provider.APIError{}, ai.ClassQuota, false},
	{"403", 403, provider.APIError{}, ai.ClassAuth, false},
	{"404", 404, provider.APIError{}, ai.ClassServer, false},
	{"407", 407, provider.APIError{}, ai.ClassServer, false},
	{"408", 408, provider.APIError{}, ai.ClassTimeout, true},
	{"409", 409, provider.APIError{}, ai.ClassServer, true},
	{"410", 410, provider.APIError{}, ai.ClassServer, false},
	{"413", 413, provider.APIError{}, ai.ClassContextOverflow, false},
	{"428", 428, provider.APIError{}, ai.ClassServer, false},
	{"429 bare", 429, provider.APIError{}, ai.ClassRateLimit, true},
	{"430", 430, provider.APIError{}, ai.ClassServer, false},
	{"499", 499, provider.APIError{}, ai.ClassServer, false},
	{"500", 500, provider.APIError{}, ai.ClassServer, true},
	{"501", 501, provider.APIError{}, ai.ClassServer, true},
	{"502", 502, provider.APIError{}, ai.ClassServer, true},
	{"503", 503, provider.APIError{}, ai.ClassOverloaded, true},
	{"504", 504, provider.APIError{}, ai.ClassServer, true},
	{"505", 505, provider.APIError{}, ai.ClassServer, false},
	{"528", 528, provider.APIError{}, ai.ClassServer, false},
	{"529", 529, provider.APIError{}, ai.ClassOverloaded, true},
	{"530", 530, provider.APIError{}, ai.ClassServer, false},
	{"no status, no body", 0, provider.APIError{}, ai.ClassServer, false},
}

// withBody is what the provider's error body or stream error event says,
// alone (status 0: an error event inside a 200 stream) or with a status.
var withBody = []classCase{
	{"stream auth", 0, provider.APIError{Type: "authentication_error"}, ai.ClassAuth, false},
	{"stream permission", 0, provider.APIError{Type: "permission_error"}, ai.ClassAuth, false},
	{"400 authentication_error", 400, provider.APIError{Type: "authentication_error"}, ai.ClassAuth, false},
	{"stream billing", 0, provider.APIError{Type: "billing_error"}, ai.ClassQuota, false},
	{"stream rate limit", 0, provider.APIError{Type: "rate_limit_error"}, ai.ClassRateLimit, true},
	{"400 rate limit code", 400, provider.APIError{Code: "rate_limit_exceeded"}, ai.ClassRateLimit, true},
	{"stream overloaded", 0, provider.APIError{Type: "overloaded_error"}, ai.ClassOverloaded, true},
	{"400 overloaded_error", 400, provider.APIError{Type: "overloaded_error"}, ai.ClassOverloaded, true},
	{"stream api_error", 0, provider.APIError{Type: "api_error"}, ai.ClassServer, true},
	{"stream server_error", 0, provider.APIError{Type: "server_error"}, ai.ClassServer, true},
	{"400 api_error", 400, provider.APIError{Type: "api_error"}, ai.ClassServer, false},
	{"404 server_error", 404, provider.APIError{Type: "server_error"}, ai.ClassServer, false},
	{"stream invalid request", 0, provider.APIError{Type: "invalid_request_error", Message: "bad"}, ai.ClassServer, false},
	{"500 api_error", 500, provider.APIError{Type: "api_error"}, ai.ClassServer, true},
	{"529 overloaded_error", 529, provider.APIError{Type: "overloaded_error"}, ai.ClassOverloaded, true},
	{"402 billing_error", 402, provider.APIError{Type: "billing_error"}, ai.ClassQuota, false},

	// Quota is not a rate limit: waiting does not bring money back.
	{"429 insufficient_quota", 429, provider.APIError{Code: "insufficient_quota", Message: "You exceeded your current quota"}, ai.ClassQuota, false},
	{"429 quota in message only", 429, provider.APIError{Message: "You exceeded your current quota, please check your plan"}, ai.ClassQuota, false},
	{"429 credit_balance_exhausted", 429, provider.APIError{Code: "credit_balance_exhausted"}, ai.ClassQuota, false},
	{"429 enforced_spend_limit_reached", 429, provider.APIError{Code: "enforced_spend_limit_reached"}, ai.ClassQuota, false},
	{"400 credit balance", 400, provider.APIError{Type: "invalid_request_error", Message: "Your credit balance is too low"}, ai.ClassQuota, false},
	{"stream quota phrase in type", 0, provider.APIError{Type: "billing_hard_limit"}, ai.ClassQuota, false},
	{"stream quota phrase in code", 0, provider.APIError{Code: "org_credit_balance_low"}, ai.ClassQuota, false},
	{"500 spend limit", 500, provider.APIError{Message: "Monthly SPEND LIMIT reached"}, ai.ClassQuota, false},

	// Overflow: 413, the codes at any status, the phrases at 400 or in a stream.
	{"429 context_length_exceeded", 429, provider.APIError{Code: "context_length_exceeded"}, ai.ClassContextOverflow, false},
	{"401 context_length_exceeded", 401, provider.APIError{Code: "context_length_exceeded"}, ai.ClassContextOverflow, false},
	{"500 request_too_large", 500, provider.APIError{Type: "request_too_large"}, ai.ClassContextOverflow, false},
	{"stream overflow phrase", 0, provider.APIError{Type: "invalid_request_error", Message: "prompt is too long: 1 tokens > 0 maximum"}, ai.ClassContextOverflow, false},
	{"500 overflow phrase is a server error", 500, provider.APIError{Message: "prompt is too long"}, ai.ClassServer, true},
	{"422 overflow phrase", 422, provider.APIError{Message: "maximum context length exceeded"}, ai.ClassServer, false},
	{"401 overflow phrase is auth", 401, provider.APIError{Message: "prompt is too long"}, ai.ClassAuth, false},
}

func TestClassifyStatusesAndBodies(t *testing.T) {
	t.Parallel()
	for _, tt := range append(statusOnly, withBody...) {
		t.Run(tt.name, func(t *testing.T) {
			pe := provider.Classify(provider.Status{Code: tt.status}, tt.e)
			if pe.Class != tt.class || pe.Retryable != tt.retryable {
				t.Errorf("Classify = %s retryable=%v, want %s retryable=%v", pe.Class, pe.Retryable, tt.class, tt.retryable)
			}
			if pe.Status != tt.status || pe.RetryAfter != 0 || pe.Err != nil {
				t.Errorf("Classify = status %d, retry after %s, err %v; want status %d and nothing else", pe.Status, pe.RetryAfter, pe.Err, tt.status)
			}
			// The headers a server sends with no hint in them change nothing.
			h := http.Header{"Content-Type": {"application/json"}}
			ph := provider.Classify(provider.Status{Code: tt.status, Header: h}, tt.e)
			if ph.Class != tt.class || ph.Retryable != tt.retryable || ph.RetryAfter != 0 {
				t.Errorf("with headers: %s retryable=%v after %s", ph.Class, ph.Retryable, ph.RetryAfter)
			}
		})
	}
}

func TestClassifyOverflowPhrases(t *testing.T) {
	t.Parallel()
	for _, msg := range []string{
		"Prompt is too long", "prompt too long", "context_length_exceeded", "This model's maximum context length is 8192",
		"input length exceeds context length", "exceeds the context window", "context size exceeded", "context limit reached",
		"too many tokens", "Input is too long for requested model", "request_too_large", "input exceeds the context",
	} {
		for _, status := range []int{0, 400} {
			pe := provider.Classify(provider.Status{Code: status}, provider.APIError{Type: "invalid_request_error", Message: msg})
			if pe.Class != ai.ClassContextOverflow || pe.Retryable {
				t.Errorf("%d %q: %s retryable=%v, want context_overflow", status, msg, pe.Class, pe.Retryable)
			}
		}
	}
	if !provider.IsContextOverflow(413, provider.APIError{}) || provider.IsContextOverflow(400, provider.APIError{Message: "bad"}) {
		t.Error("IsContextOverflow: 413 must overflow, a plain 400 must not")
	}
}

func TestClassifyXShouldRetry(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		status    int
		e         provider.APIError
		header    string
		class     ai.Class
		retryable bool
	}{
		{"true makes a 505 retryable", 505, provider.APIError{}, "true", ai.ClassServer, true},
		{"TRUE in any case", 530, provider.APIError{}, "TRUE", ai.ClassServer, true},
		{"true makes a stream error retryable", 0, provider.APIError{Type: "weird_error"}, "true", ai.ClassServer, true},
		// A refused request is sent again only to be refused again.
		{"true keeps a 400 final", 400, provider.APIError{Type: "invalid_request_error"}, "true", ai.ClassServer, false},
		{"true keeps a 404 final", 404, provider.APIError{}, "true", ai.ClassServer, false},
		{"true keeps a 422 final", 422, provider.APIError{}, "true", ai.ClassServer, false},
		{"false stops a 500", 500, provider.APIError{}, "false", ai.ClassServer, false},
		{"False stops a 429", 429, provider.APIError{}, "False", ai.ClassRateLimit, false},
		{"false stops a stream overload", 0, provider.APIError{Type: "overloaded_error"}, "false", ai.ClassOverloaded, false},
		{"another value changes nothing", 500, provider.APIError{}, "maybe", ai.ClassServer, true},
		{"another value keeps a 400 final", 400, provider.APIError{}, "1", ai.ClassServer, false},
		// A server's hint never retries what waiting cannot fix.
		{"auth stays final", 401, provider.APIError{}, "true", ai.ClassAuth, false},
		{"permission stays final", 403, provider.APIError{Type: "permission_error"}, "true", ai.ClassAuth, false},
		{"quota stays final", 429, provider.APIError{Code: "insufficient_quota"}, "true", ai.ClassQuota, false},
		{"quota in a stream stays final", 0, provider.APIError{Type: "billing_error"}, "true", ai.ClassQuota, false},
		{"auth in a stream stays final", 0, provider.APIError{Type: "authentication_error"}, "true", ai.ClassAuth, false},
		{"billing stays final", 402, provider.APIError{}, "true", ai.ClassQuota, false},
		{"overflow stays final", 413, provider.APIError{}, "true", ai.ClassContextOverflow, false},
		{"overflow phrase stays final", 400, provider.APIError{Message: "prompt is too long"}, "true", ai.ClassContextOverflow, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			h.Set("X-Should-Retry", tt.header)
			pe := provider.Classify(provider.Status{Code: tt.status, Header: h}, tt.e)
			if pe.Class != tt.class || pe.Retryable != tt.retryable {
				t.Errorf("Classify = %s retryable=%v, want %s retryable=%v", pe.Class, pe.Retryable, tt.class, tt.retryable)
			}
		})
	}
}

func TestClassifyRetryAfterHeader(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	h := http.Header{}
	h.Set("Retry-After", now.Add(42*time.Second).Format(http.TimeFormat))
	pe := provider.Classify(provider.Status{Code: 429, Header: h, Now: now}, provider.APIError{})
	if pe.RetryAfter != 42*time.Second || pe.Class != ai.ClassRateLimit || !pe.Retryable {
		t.Errorf("Classify = %s retryable=%v after %s, want rate_limit retryable after 42s", pe.Class, pe.Retryable, pe.RetryAfter)
	}
	h = http.Header{}
	h.Set("retry-after-ms", "1500")
	pe = provider.Classify(provider.Status{Code: 503, Header: h, Now: now}, provider.APIError{})
	if pe.RetryAfter != 1500*time.Millisecond {
		t.Errorf("retry-after-ms: RetryAfter = %s, want 1.5s", pe.RetryAfter)
	}
}

func TestClassifyMessage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		status int
		e      provider.APIError
		want   string
	}{
		{429, provider.APIError{}, "Too Many Requests"},
		{500, provider.APIError{Message: "  \n "}, "Internal Server Error"},
		{0, provider.APIError{}, "unknown error"},
		{599, provider.APIError{}, "unknown error"},
		{0, provider.APIError{Message: "  busy  "}, "busy"},
		{529, provider.APIError{Type: "overloaded_error", Message: "Overloaded"}, "overloaded_error: Overloaded"},
		{429, provider.APIError{Type: "requests", Code: "rate_limit_exceeded", Message: "slow down"}, "requests/rate_limit_exceeded: slow down"},
		{429, provider.APIError{Code: "insufficient_quota", Message: "pay"}, "insufficient_quota: pay"},
		{400, provider.APIError{Type: "invalid_request_error", Code: "invalid_request_error", Message: "bad"}, "invalid_request_error: bad"},
		{401, provider.APIError{Type: "authentication_error"}, "authentication_error: Unauthorized"},
	}
	for _, tt := range tests {
		pe := provider.Classify(provider.Status{Code: tt.status}, tt.e)
		if pe.Message != tt.want {
			t.Errorf("Classify(%d, %+v).Message = %q, want %q", tt.status, tt.e, pe.Message, tt.want)
		}
	}
	pe := provider.Classify(provider.Status{Code: 429}, provider.APIError{Type: "rate_limit_error", Message: "slow"})
	if got, want := pe.Error(), "rate_limit (HTTP 429): rate_limit_error: slow"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestIsQuota(t *testing.T) {
	t.Parallel()
	for _, e := range []provider.APIError{
		{Type: "billing_error"}, {Code: "insufficient_quota"}, {Code: "credit_balance_exhausted"},
		{Code: "enforced_spend_limit_reached"}, {Message: "Billing hard limit has been reached"},
		{Message: "your credit_balance is empty"}, {Type: "x_credit_balance"}, {Code: "spend limit"},
	} {
		if !provider.IsQuota(e) {
			t.Errorf("IsQuota(%+v) = false", e)
		}
	}
	for _, e := range []provider.APIError{{}, {Type: "rate_limit_error", Message: "slow down"}, {Code: "quota"}} {
		if provider.IsQuota(e) {
			t.Errorf("IsQuota(%+v) = true", e)
		}
	}
}

func TestScrub(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		secrets []string
		want    string
	}{
		{"key sk-123456 and sk-123456 again", []string{"sk-123456"}, "key [REDACTED] and [REDACTED] again"},
		{"a=sk-aaaa b=tok-bbbb", []string{"sk-aaaa", "tok-bbbb"}, "a=[REDACTED] b=[REDACTED]"},
		{"four abcd", []string{"abcd"}, "four [REDACTED]"},
		// Short or empty secrets would blank out ordinary text.
		{"the abc of it", []string{"abc", "", "ab"}, "the abc of it"},
		{"nothing here", nil, "nothing here"},
	}
	for _, tt := range tests {
		if got := provider.Scrub(tt.in, tt.secrets...); got != tt.want {
			t.Errorf("Scrub(%q, %q) = %q, want %q", tt.in, tt.secrets, got, tt.want)
		}
	}
}
