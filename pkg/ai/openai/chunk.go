package openai

import (
	"encoding/json"
	"errors"

	"gopi/internal/pijson"
	"gopi/pkg/ai"
)

// chunk is one data event of the stream. Servers differ in what they put
// where; see the fields.
type chunk struct {
	ID      string          `json:"id"`
	Model   string          `json:"model"`
	Choices []choice        `json:"choices"`
	Usage   *usage          `json:"usage"`
	Error   json.RawMessage `json:"error"`
	// XGroq is where Groq reports usage, on the chunk that finishes, when
	// it sends none in usage.
	XGroq *struct {
		Usage *usage `json:"usage"`
	} `json:"x_groq"`
}

type choice struct {
	Delta        delta   `json:"delta"`
	FinishReason *string `json:"finish_reason"`
	// Usage is where Moonshot reports it: inside the last choice.
	Usage *usage `json:"usage"`
}

type delta struct {
	// Content is a string, or (Mistral's Magistral) an array of typed
	// parts holding text and thinking.
	Content content `json:"content"`
	// Reasoning text comes in reasoning_content (DeepSeek, llama.cpp,
	// older vLLM) or reasoning (newer vLLM, OpenRouter, Ollama), and some
	// servers fill both with the same text.
	ReasoningContent *string `json:"reasoning_content"`
	Reasoning        *string `json:"reasoning"`
	// ReasoningDetails (OpenRouter) is an array of reasoning pieces to be
	// sent back with the assistant message.
	ReasoningDetails json.RawMessage `json:"reasoning_details"`
	ToolCalls        []toolCallDelta `json:"tool_calls"`
	// Refusal is the text of a refusal (OpenAI: the model declined, with
	// finish_reason stop); null or "" in every other delta.
	Refusal *string `json:"refusal"`
}

type toolCallDelta struct {
	// Index says which call a fragment belongs to, when the server keeps
	// it apart: some send 0 for every call or leave it out.
	Index    int    `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name      string    `json:"name"`
		Arguments arguments `json:"arguments"`
	} `json:"function"`
	// ExtraContent carries Gemini's thought signature, which must come
	// back on the same call.
	ExtraContent *struct {
		Google *struct {
			ThoughtSignature string `json:"thought_signature"`
		} `json:"google"`
	} `json:"extra_content"`
}

var errContentType = errors.New("content is neither a string nor an array of parts")

// content is delta.content: a string, null, or an array of parts.
type content struct {
	text  string
	parts []contentPart
}

// contentPart is {type:"text",text} or {type:"thinking",thinking}, whose
// thinking is a string or an array of text parts; other types are skipped.
type contentPart struct {
	Type     string  `json:"type"`
	Text     string  `json:"text"`
	Thinking content `json:"thinking"`
}

func (c *content) UnmarshalJSON(b []byte) error {
	switch b[0] {
	case '"':
		s, err := pijson.Unquote(b)
		c.text = s
		return err
	case '[':
		return json.Unmarshal(b, &c.parts)
	case 'n':
		return nil
	}
	return errContentType
}

// each calls text and thinking with the pieces of c, in order; false
// means one of them returned false (the consumer stopped).
func (c *content) each(text, thinking func(string) bool) bool {
	if c.text != "" {
		return text(c.text)
	}
	for i := range c.parts {
		p := &c.parts[i]
		switch p.Type {
		case "text":
			if !text(p.Text) {
				return false
			}
		case "thinking":
			if !p.Thinking.each(thinking, thinking) {
				return false
			}
		}
	}
	return true
}

// arguments is function.arguments: a string of JSON text as the API
// defines it, or, from a server that gets this wrong, the JSON itself.
type arguments string

func (a *arguments) UnmarshalJSON(b []byte) error {
	switch b[0] {
	case '"':
		s, err := pijson.Unquote(b)
		*a = arguments(s)
		return err
	case 'n':
		return nil
	}
	*a = arguments(b)
	return nil
}

// usage counts the tokens of the answer.
type usage struct {
	PromptTokens        int64 `json:"prompt_tokens"`
	CompletionTokens    int64 `json:"completion_tokens"`
	TotalTokens         int64 `json:"total_tokens"`
	PromptTokensDetails *struct {
		CachedTokens int64 `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails *struct {
		ReasoningTokens int64 `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
	// Where servers without prompt_tokens_details report cache hits:
	// Moonshot and DeepSeek.
	CachedTokens         int64 `json:"cached_tokens"`
	PromptCacheHitTokens int64 `json:"prompt_cache_hit_tokens"`
}

// tokens converts u to gopi's usage as billed. prompt_tokens includes the
// cached tokens, which are priced apart. completion_tokens includes the
// reasoning tokens at OpenAI and most servers, but not at xAI, which
// bills them all the same; the counts tell which it is, whatever the
// server: reasoning tokens are added to the output when completion_tokens
// is smaller than them (it cannot include them) or when total_tokens is
// the sum of all three (it counted them apart).
func (u *usage) tokens() ai.Usage {
	cached := u.CachedTokens
	if u.PromptTokensDetails != nil && u.PromptTokensDetails.CachedTokens > 0 {
		cached = u.PromptTokensDetails.CachedTokens
	} else if cached == 0 {
		cached = u.PromptCacheHitTokens
	}
	cached = min(max(cached, 0), u.PromptTokens)
	out := u.CompletionTokens
	var reasoning int64 // pi 1.6 records 0 when none are reported
	if d := u.CompletionTokensDetails; d != nil && d.ReasoningTokens > 0 {
		r := d.ReasoningTokens
		reasoning = r
		if out < r || u.TotalTokens == u.PromptTokens+out+r {
			out += r
		}
	}
	return ai.Usage{Input: u.PromptTokens - cached, Output: out, CacheRead: cached, Reasoning: &reasoning, TotalTokens: u.PromptTokens + out}
}
