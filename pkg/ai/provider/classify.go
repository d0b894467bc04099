package provider

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"gopi/pkg/ai"
)

// APIError is what a provider said about a failure, from an error body or
// an error event in the stream.
type APIError struct {
	Type    string // e.g. overloaded_error, invalid_request_error
	Code    string // e.g. context_length_exceeded, insufficient_quota
	Message string
}

// Status is the HTTP side of a failed response.
type Status struct {
	Code   int         // 0 for an error event inside a 200 stream
	Header http.Header // may be nil
	Now    time.Time   // for retry-after dates
}

// Classify turns a provider failure into a classified error. Context
// overflow, authentication and exhausted quota are never retryable;
// 408, 409, 429, 500–504 and 529 are, and so are overloaded, rate-limit and
// api errors reported inside a stream.
func Classify(st Status, e APIError) *ai.ProviderError {
	pe := &ai.ProviderError{Status: st.Code, Message: describe(st.Code, e)}
	if st.Header != nil {
		pe.RetryAfter = RetryAfter(st.Header, st.Now)
	}
	pe.Class, pe.Retryable = classOf(st.Code, e)
	if st.Header != nil && pe.Class != ai.ClassAuth && pe.Class != ai.ClassQuota && pe.Class != ai.ClassContextOverflow {
		switch strings.ToLower(st.Header.Get("x-should-retry")) {
		case "true":
			pe.Retryable = true
		case "false":
			pe.Retryable = false
		}
	}
	return pe
}

func classOf(status int, e APIError) (ai.Class, bool) {
	switch {
	case IsContextOverflow(status, e):
		return ai.ClassContextOverflow, false
	case status == http.StatusUnauthorized || status == http.StatusForbidden ||
		e.Type == "authentication_error" || e.Type == "permission_error":
		return ai.ClassAuth, false
	case status == http.StatusPaymentRequired || IsQuota(e):
		return ai.ClassQuota, false
	case status == http.StatusTooManyRequests || e.Type == "rate_limit_error" || e.Code == "rate_limit_exceeded":
		return ai.ClassRateLimit, true
	case status == 529 || status == http.StatusServiceUnavailable || e.Type == "overloaded_error":
		return ai.ClassOverloaded, true
	case status == http.StatusRequestTimeout:
		return ai.ClassTimeout, true
	case status == http.StatusConflict:
		return ai.ClassServer, true
	case status >= 500 && status <= 504:
		return ai.ClassServer, true
	case status == 0 && (e.Type == "api_error" || e.Type == "server_error"):
		return ai.ClassServer, true
	}
	return ai.ClassServer, false
}

func describe(status int, e APIError) string {
	msg := strings.TrimSpace(e.Message)
	if msg == "" {
		msg = http.StatusText(status)
	}
	if msg == "" {
		msg = "unknown error"
	}
	kind := e.Type
	if e.Code != "" && e.Code != e.Type {
		kind = strings.Trim(kind+"/"+e.Code, "/")
	}
	if kind != "" {
		return fmt.Sprintf("%s: %s", kind, msg)
	}
	return msg
}

var overflowPhrases = []string{
	"prompt is too long",
	"prompt too long",
	"context_length_exceeded",
	"maximum context length",
	"context length",
	"context window",
	"context size",
	"context limit",
	"too many tokens",
	"input is too long",
	"request_too_large",
	"exceeds the context",
}

// IsContextOverflow reports whether the failure says the request does not
// fit the model's context window (413, or a 400 saying so).
func IsContextOverflow(status int, e APIError) bool {
	if status == http.StatusRequestEntityTooLarge || e.Code == "context_length_exceeded" || e.Type == "request_too_large" {
		return true
	}
	if status != 0 && status != http.StatusBadRequest {
		return false
	}
	return containsAny(strings.ToLower(e.Message), overflowPhrases)
}

var quotaPhrases = []string{
	"insufficient_quota",
	"exceeded your current quota",
	"credit balance",
	"credit_balance",
	"billing",
	"spend limit",
	"enforced_spend_limit_reached",
}

// IsQuota reports whether the failure says the account has no money or
// quota left, which waiting will not fix.
func IsQuota(e APIError) bool {
	if e.Type == "billing_error" || e.Code == "insufficient_quota" || e.Code == "credit_balance_exhausted" ||
		e.Code == "enforced_spend_limit_reached" {
		return true
	}
	return containsAny(strings.ToLower(e.Message+" "+e.Type+" "+e.Code), quotaPhrases)
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// Redacted replaces secrets in error text.
const Redacted = "[REDACTED]"

// Scrub removes every secret from s. Secrets shorter than 4 bytes are
// ignored (they would blank out ordinary text and are not credentials).
func Scrub(s string, secrets ...string) string {
	for _, k := range secrets {
		if len(k) >= 4 {
			s = strings.ReplaceAll(s, k, Redacted)
		}
	}
	return s
}
