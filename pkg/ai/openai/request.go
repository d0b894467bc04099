package openai

import (
	"encoding/json"
	"fmt"
	"strings"

	"gopi/pkg/ai"
	"gopi/pkg/ai/provider"
)

type request struct {
	Model               string          `json:"model"`
	Messages            []message       `json:"messages"`
	Stream              bool            `json:"stream"`
	StreamOptions       *streamOptions  `json:"stream_options,omitempty"`
	MaxTokens           int             `json:"max_tokens,omitempty"`
	MaxCompletionTokens int             `json:"max_completion_tokens,omitempty"`
	Temperature         *float64        `json:"temperature,omitempty"`
	Tools               []tool          `json:"tools,omitempty"`
	ReasoningEffort     string          `json:"reasoning_effort,omitempty"`
	ResponseFormat      *responseFormat `json:"response_format,omitempty"`
}

// responseFormat asks for an answer valid against a JSON Schema. strict is
// off: strict mode takes only a subset of JSON Schema, and gopi checks the
// answer itself.
type responseFormat struct {
	Type       string     `json:"type"` // "json_schema"
	JSONSchema jsonSchema `json:"json_schema"`
}

type jsonSchema struct {
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
	Strict bool            `json:"strict"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type message struct {
	Role             string     `json:"role"`
	Content          any        `json:"content"` // string, []part, or null
	Name             string     `json:"name,omitempty"`
	ToolCalls        []toolCall `json:"tool_calls,omitempty"`
	ToolCallID       string     `json:"tool_call_id,omitempty"`
	ReasoningContent string     `json:"reasoning_content,omitempty"`
	Reasoning        string     `json:"reasoning,omitempty"`
	// ReasoningDetails is OpenRouter's array, sent back as it came.
	ReasoningDetails json.RawMessage `json:"reasoning_details,omitempty"`
}

type part struct {
	Type     string    `json:"type"`
	Text     string    `json:"text,omitempty"`
	ImageURL *imageURL `json:"image_url,omitempty"`
}

type imageURL struct {
	URL string `json:"url"`
}

type toolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function functionCall `json:"function"`
	// ExtraContent is {"google":{"thought_signature":…}}, Gemini's.
	ExtraContent json.RawMessage `json:"extra_content,omitempty"`
}

type functionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type tool struct {
	Type     string       `json:"type"`
	Function functionSpec `json:"function"`
}

type functionSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

func buildBody(info ai.Info, q Quirks, req *ai.Request) ([]byte, error) {
	body, err := newRequest(info, q, req).encode()
	if err != nil {
		return nil, fmt.Errorf("encode chat completions request: %w", err)
	}
	return body, nil
}

// newRequest converts req into the body's structs.
func newRequest(info ai.Info, q Quirks, req *ai.Request) *request {
	r := &request{Model: info.ID, Stream: true, StreamOptions: &streamOptions{IncludeUsage: true}, Temperature: req.Temperature, Messages: []message{}}
	if req.SystemPrompt != "" {
		role := q.SystemRole
		if role == "" {
			role = "system"
		}
		r.Messages = append(r.Messages, message{Role: role, Content: req.SystemPrompt})
	}
	r.Messages = append(r.Messages, convertMessages(provider.Normalize(req.Messages, info), info, q)...)
	if req.MaxTokens > 0 {
		if q.MaxTokensField == "max_completion_tokens" {
			r.MaxCompletionTokens = req.MaxTokens
		} else {
			r.MaxTokens = req.MaxTokens
		}
	}
	for _, t := range req.Tools {
		params := t.Parameters
		if len(params) == 0 || string(params) == "null" {
			params = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		r.Tools = append(r.Tools, tool{Type: "function", Function: functionSpec{Name: t.Name, Description: t.Description, Parameters: params}})
	}
	if info.Reasoning && q.ReasoningEffort {
		r.ReasoningEffort = effort(req.Thinking, info.ID)
	}
	if len(req.OutputSchema) > 0 && q.ResponseFormat {
		r.ResponseFormat = &responseFormat{Type: "json_schema", JSONSchema: jsonSchema{Name: "answer", Schema: req.OutputSchema}}
	}
	return r
}

// effort maps a thinking level to reasoning_effort. xhigh exists only on
// the newest GPT-5 models and minimal not on the o-series; both fall back
// to the nearest level.
func effort(level ai.ThinkingLevel, id string) string {
	switch level {
	case ai.ThinkingMinimal:
		if strings.HasPrefix(id, "o") {
			return "low"
		}
		return "minimal"
	case ai.ThinkingLow, ai.ThinkingMedium, ai.ThinkingHigh:
		return string(level)
	case ai.ThinkingXHigh:
		for _, p := range []string{"gpt-5.2", "gpt-5.3", "gpt-5.4"} {
			if strings.Contains(id, p) {
				return "xhigh"
			}
		}
		return "high"
	}
	return ""
}
