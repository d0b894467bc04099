package provider_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"gopi/pkg/ai"
	"gopi/pkg/ai/provider"
)

// providerBodies are error answers in each provider's documented shape
// and words (written for these tests, not captured).
var providerBodies = []struct {
	name      string
	status    int
	body      string
	reqBytes  int64
	class     ai.Class
	retryable bool
	says      string // what the user must see of the provider's message
}{
	{"Anthropic overflow", 400, `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 213462 tokens > 200000 maximum"},"request_id":"req_1"}`,
		0, ai.ClassContextOverflow, false, "prompt is too long: 213462 tokens > 200000 maximum"},
	{"Anthropic request too large", 413, `{"type":"error","error":{"type":"request_too_large","message":"Request exceeds the maximum allowed number of bytes."}}`,
		0, ai.ClassContextOverflow, false, "Request exceeds the maximum"},
	{"Anthropic overloaded", 529, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`,
		0, ai.ClassOverloaded, true, "Overloaded"},
	{"OpenAI overflow", 400, `{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130532 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`,
		0, ai.ClassContextOverflow, false, "maximum context length is 128000 tokens"},
	{"OpenAI context window", 400, `{"error":{"message":"Your input exceeds the context window of this model. Please adjust your input and try again.","type":"invalid_request_error","param":"input","code":null}}`,
		0, ai.ClassContextOverflow, false, "exceeds the context window"},
	{"OpenAI quota", 429, `{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`,
		0, ai.ClassQuota, false, "exceeded your current quota"},
	{"Azure overflow", 400, `{"error":{"code":"context_length_exceeded","message":"This model's maximum context length is 8192 tokens. However, your messages resulted in 9120 tokens. Please reduce the length of the messages.","param":"messages","type":"invalid_request_error","status":400}}`,
		0, ai.ClassContextOverflow, false, "maximum context length is 8192"},
	{"Gemini overflow in an array", 400, `[{"error":{"code":400,"message":"The input token count (1196265) exceeds the maximum number of tokens allowed (1048575).","status":"INVALID_ARGUMENT"}}]`,
		0, ai.ClassContextOverflow, false, "The input token count (1196265) exceeds the maximum number of tokens allowed (1048575)."},
	{"Gemini quota in an array", 429, `[{"error":{"code":429,"message":"You exceeded your current quota, please check your plan and billing details.","status":"RESOURCE_EXHAUSTED"}}]`,
		0, ai.ClassQuota, false, "exceeded your current quota"},
	{"Gemini rate limit", 429, `{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}}`,
		0, ai.ClassRateLimit, true, "Resource has been exhausted"},
	{"Gemini key refused", 400, `[{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"UNAUTHENTICATED"}}]`,
		0, ai.ClassAuth, false, "API key not valid"},
	{"xAI overflow", 400, `{"code":"Client specified an invalid argument","error":"This model's maximum prompt length is 131072 but the request contains 537812 tokens."}`,
		0, ai.ClassContextOverflow, false, "maximum prompt length is 131072"},
	{"Kimi overflow", 400, `{"error":{"message":"Invalid request: Your request exceeded model token limit: 262144","type":"invalid_request_error"}}`,
		0, ai.ClassContextOverflow, false, "exceeded model token limit: 262144"},
	{"Copilot overflow", 400, `{"error":{"message":"prompt token count of 140532 exceeds the limit of 128000","code":"model_max_prompt_tokens_exceeded"}}`,
		0, ai.ClassContextOverflow, false, "prompt token count of 140532 exceeds the limit of 128000"},
	{"Mistral overflow", 400, `{"object":"error","message":"Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 maximum context length","type":"invalid_request_error","param":null,"code":null}`,
		0, ai.ClassContextOverflow, false, "too large for model with 32768 maximum context length"},
	{"Groq overflow", 400, `{"error":{"message":"Please reduce the length of the messages or completion.","type":"invalid_request_error","param":"messages"}}`,
		0, ai.ClassContextOverflow, false, "Please reduce the length of the messages"},
	{"Groq per-minute limit is a rate limit", 413, `{"error":{"message":"Request too large for model ` + "`llama-3.3-70b-versatile`" + ` in organization ` + "`org_1`" + ` service tier ` + "`on_demand`" + ` on tokens per minute (TPM): Limit 12000, Requested 14291, please reduce your message size and try again. Need more tokens? Upgrade to Dev Tier today at https://console.groq.com/settings/billing","type":"tokens","code":"rate_limit_exceeded"}}`,
		0, ai.ClassRateLimit, true, "on tokens per minute (TPM)"},
	{"Cerebras empty 400 on a large request", 400, ``, provider.EmptyOverflowBytes, ai.ClassContextOverflow, false, "Bad Request"},
	{"empty 400 on a small request", 400, ``, provider.EmptyOverflowBytes - 1, ai.ClassServer, false, "Bad Request"},
	{"empty 400 of unknown size", 400, "  \n", 0, ai.ClassServer, false, "Bad Request"},
	{"llama.cpp overflow", 400, `{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":9000,"n_ctx":8192}}`,
		0, ai.ClassContextOverflow, false, "exceeds the available context size"},
	{"vLLM overflow", 400, `{"object":"error","message":"This model's maximum context length is 4096 tokens. However, your request has 5000 input tokens. Please reduce the length of the input messages.","type":"BadRequestError","param":null,"code":400}`,
		0, ai.ClassContextOverflow, false, "your request has 5000 input tokens"},
	{"Ollama overflow", 400, `{"error":"input length exceeds maximum context length"}`,
		0, ai.ClassContextOverflow, false, "input length exceeds maximum context length"},
	{"Ollama context length exceeded", 400, `{"error":{"message":"context length exceeded","type":"invalid_request_error"}}`,
		0, ai.ClassContextOverflow, false, "context length exceeded"},
	{"a proxy's HTML page", 502, "<html><body><h1>502 Bad Gateway</h1></body></html>",
		0, ai.ClassServer, true, "502 Bad Gateway"},
	{"FastAPI detail", 422, `{"detail":"model not loaded"}`, 0, ai.ClassServer, false, "model not loaded"},
}

func TestClassifyProviderBodies(t *testing.T) {
	t.Parallel()
	for _, tt := range providerBodies {
		t.Run(tt.name, func(t *testing.T) {
			st := provider.Status{Code: tt.status, RequestBytes: tt.reqBytes}
			pe := provider.Classify(st, provider.ErrorFromBody([]byte(tt.body)))
			if pe.Class != tt.class || pe.Retryable != tt.retryable {
				t.Errorf("%s retryable=%v, want %s retryable=%v (%q)", pe.Class, pe.Retryable, tt.class, tt.retryable, pe.Message)
			}
			if !strings.Contains(pe.Message, tt.says) {
				t.Errorf("message %q does not say %q", pe.Message, tt.says)
			}
			// The user reads the provider's words, never its JSON.
			if strings.ContainsAny(pe.Message, "{[") {
				t.Errorf("message %q shows raw JSON", pe.Message)
			}
			if got := provider.IsContextOverflow(tt.status, provider.ErrorFromBody([]byte(tt.body))); got != (tt.class == ai.ClassContextOverflow) && tt.reqBytes == 0 {
				t.Errorf("IsContextOverflow = %v", got)
			}
		})
	}
}

// Groq's 413 rate limit is retried after the wait it names: its header,
// or, without one, its message.
func TestClassifyRateLimitWait(t *testing.T) {
	t.Parallel()
	body := `{"error":{"message":"Rate limit reached for model x on tokens per minute (TPM): Limit 6000, Used 5000, Requested 2000. Please try again in 7.66s.","type":"tokens","code":"rate_limit_exceeded"}}`
	pe := provider.Classify(provider.Status{Code: 413}, provider.ErrorFromBody([]byte(body)))
	if pe.Class != ai.ClassRateLimit || !pe.Retryable || pe.RetryAfter != 7660*time.Millisecond {
		t.Errorf("%s retryable=%v after %s, want rate_limit after 7.66s", pe.Class, pe.Retryable, pe.RetryAfter)
	}
	h := http.Header{"Retry-After": {"3"}}
	pe = provider.Classify(provider.Status{Code: 429, Header: h}, provider.ErrorFromBody([]byte(body)))
	if pe.RetryAfter != 3*time.Second {
		t.Errorf("with a header: after %s, want its 3s", pe.RetryAfter)
	}
	pe = provider.Classify(provider.Status{Code: 429}, provider.APIError{Message: "Please try again in 20ms."})
	if pe.RetryAfter != 20*time.Millisecond {
		t.Errorf("20ms: after %s", pe.RetryAfter)
	}
	pe = provider.Classify(provider.Status{Code: 429}, provider.APIError{Message: "Please try again in 0.5s."})
	if pe.RetryAfter != 500*time.Millisecond {
		t.Errorf("0.5s: after %s", pe.RetryAfter)
	}
	h = http.Header{"Retry-After": {"0"}}
	pe = provider.Classify(provider.Status{Code: 429, Header: h}, provider.APIError{Message: "Please try again in 20s."})
	if pe.RetryAfter != 0 || !pe.RetryNow {
		t.Errorf("retry-after 0 beats the message: after %s now=%v", pe.RetryAfter, pe.RetryNow)
	}
}

func TestErrorMessageBounded(t *testing.T) {
	t.Parallel()
	page := strings.Repeat("é", 5000)
	pe := provider.Classify(provider.Status{Code: 502}, provider.ErrorFromBody([]byte(page)))
	if len(pe.Message) > 2100 || !strings.HasSuffix(pe.Message, "…") || !strings.HasPrefix(pe.Message, "éé") {
		t.Errorf("message of %d bytes: %.40q…", len(pe.Message), pe.Message)
	}
}
