package provider

import (
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
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
	// RequestBytes is the size of the request body that failed, 0 when
	// unknown: an empty 400 answer to a large request is an overflow.
	RequestBytes int64
}

// EmptyOverflowBytes is the request size from which a 400 with an empty
// body is taken for a context overflow (Cerebras answers an overflow so).
// 32 KiB is about 8k tokens, the smallest context window still served: a
// smaller request cannot overflow, so its empty 400 stays a plain refusal.
const EmptyOverflowBytes = 32 << 10

// Classify turns a provider failure into a classified error. Context
// overflow, authentication, exhausted quota and other refusals of the
// request (4xx) are never retryable; 408, 409, 429, 500–504 and 529 are,
// and so are overloaded, rate-limit and api errors reported inside a stream.
// A server's x-should-retry header can stop a retry, or allow one for a
// server-side failure, never for a refusal of the request.
func Classify(st Status, e APIError) *ai.ProviderError {
	pe := &ai.ProviderError{Status: st.Code, Message: describe(st.Code, e)}
	if st.Header != nil {
		pe.RetryAfter, pe.RetryNow = RetryAfter(st.Header, st.Now)
	}
	if pe.RetryAfter == 0 && !pe.RetryNow {
		pe.RetryAfter = hintInMessage(e.Message)
	}
	pe.Class, pe.Retryable = classOf(st, e)
	if st.Header != nil {
		switch strings.ToLower(st.Header.Get("x-should-retry")) {
		case "true":
			pe.Retryable = pe.Retryable || (mayRetry(pe.Class) && (st.Code == 0 || st.Code >= 500))
		case "false":
			pe.Retryable = false
		}
	}
	return pe
}

// mayRetry reports whether waiting can change a failure of class c.
func mayRetry(c ai.Class) bool {
	return c != ai.ClassAuth && c != ai.ClassQuota && c != ai.ClassContextOverflow
}

func classOf(st Status, e APIError) (ai.Class, bool) {
	status := st.Code
	switch {
	case IsContextOverflow(status, e) || emptyOverflow(st, e):
		return ai.ClassContextOverflow, false
	case status == http.StatusUnauthorized || status == http.StatusForbidden ||
		e.Type == "authentication_error" || e.Type == "permission_error" ||
		e.Type == "UNAUTHENTICATED" || e.Type == "PERMISSION_DENIED":
		return ai.ClassAuth, false
	case status == http.StatusPaymentRequired || IsQuota(e):
		return ai.ClassQuota, false
	case status == http.StatusTooManyRequests || isRateLimit(e):
		return ai.ClassRateLimit, true
	case status == 529 || status == http.StatusServiceUnavailable || e.Type == "overloaded_error" || e.Type == "UNAVAILABLE":
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

// isRateLimit reports whether the body says a rate limit was hit, whatever
// the status: Groq answers a request over its tokens-per-minute limit with
// 413 "Request too large … on tokens per minute (TPM)", which the next
// minute fixes.
func isRateLimit(e APIError) bool {
	if e.Type == "rate_limit_error" || e.Code == "rate_limit_exceeded" || e.Type == "RESOURCE_EXHAUSTED" {
		return true
	}
	msg := strings.ToLower(e.Message)
	return containsAny(msg, []string{"rate limit", "tokens per minute", "requests per minute", "too many requests"})
}

// emptyOverflow is Cerebras' overflow: a 400 with nothing in it, in answer
// to a request large enough to overflow some context window.
func emptyOverflow(st Status, e APIError) bool {
	return st.Code == http.StatusBadRequest && strings.TrimSpace(e.Message) == "" && e.Type == "" && e.Code == "" &&
		st.RequestBytes >= EmptyOverflowBytes
}

// hintPattern is the wait a rate-limit message names ("Please try again in
// 7.66s", "in 20ms"), for servers that say it only there.
var hintPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)try again in (\d+(?:\.\d+)?)\s*(ms|s)\b`) })

func hintInMessage(msg string) time.Duration {
	m := hintPattern().FindStringSubmatch(msg)
	if m == nil {
		return 0
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil || v <= 0 {
		return 0
	}
	unit := time.Second
	if strings.EqualFold(m[2], "ms") {
		unit = time.Millisecond
	}
	return time.Duration(v * float64(unit))
}

func describe(status int, e APIError) string {
	msg := clip(strings.TrimSpace(e.Message))
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

// overflowPhrases are the providers' own words for a request that does
// not fit the context window.
var overflowPhrases = []string{
	"prompt is too long",                    // Anthropic
	"prompt too long",                       //
	"context_length_exceeded",               // OpenAI, Azure (code, also in text)
	"maximum context length",                // OpenAI, Azure, vLLM, Mistral, OpenRouter
	"exceeds the context window",            // OpenAI Responses
	"exceeds the maximum number of tokens",  // Gemini: "The input token count (…) exceeds the maximum number of tokens allowed"
	"maximum prompt length is",              // xAI
	"exceeded model token limit",            // Kimi, Moonshot
	"prompt token count of",                 // Copilot: "prompt token count of … exceeds the limit of …"
	"reduce the length of the messages",     // Groq, vLLM
	"exceeds the available context size",    // llama.cpp
	"greater than the context length",       // LM Studio
	"context length exceeded",               // Ollama
	"input length exceeds",                  // Ollama
	"context window exceeds limit",          // MiniMax
	"input is too long for requested model", // Bedrock
	"context length",
	"context window",
	"context size",
	"context limit",
	"too many tokens",
	"token limit exceeded",
	"input is too long",
	"request_too_large",
	"exceeds the context",
}

// overflowCodes are the codes and types that say so by themselves.
var overflowCodes = map[string]bool{
	"context_length_exceeded":          true, // OpenAI, Azure, Groq
	"request_too_large":                true, // Anthropic (413)
	"exceed_context_size_error":        true, // llama.cpp
	"model_max_prompt_tokens_exceeded": true, // Copilot
	"string_above_max_length":          true,
}

// IsContextOverflow reports whether the failure says the request does not
// fit the model's context window: a code saying so, a 413 that is not a
// rate limit, or a 400 (or an error event) in one provider's words.
func IsContextOverflow(status int, e APIError) bool {
	if overflowCodes[e.Code] || overflowCodes[e.Type] {
		return true
	}
	if isRateLimit(e) {
		return false
	}
	if status == http.StatusRequestEntityTooLarge {
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
	// A rate limit that says so by code is one, whatever its text adds
	// (Groq's ends with a link to its billing page).
	if e.Type == "rate_limit_error" || e.Code == "rate_limit_exceeded" {
		return false
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
