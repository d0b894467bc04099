package responses

import (
	"encoding/json"
	"fmt"
	"strings"

	"gopi/pkg/ai"
)

// The body of POST /responses. Input holds items of the types below
// (inputMessage, outputMessage, reasoningItem, functionCall,
// functionOutput); the writer in body.go knows them all.
type request struct {
	Model           string      `json:"model"`
	Instructions    string      `json:"instructions,omitempty"`
	Input           []any       `json:"input"`
	Stream          bool        `json:"stream"`
	Store           bool        `json:"store"`
	Include         []string    `json:"include,omitempty"`
	MaxOutputTokens int         `json:"max_output_tokens,omitempty"`
	Temperature     *float64    `json:"temperature,omitempty"`
	Tools           []tool      `json:"tools,omitempty"`
	Reasoning       *reasoning  `json:"reasoning,omitempty"`
	Text            *textFormat `json:"text,omitempty"`
}

// textFormat asks for an answer valid against a JSON Schema (strict off:
// strict mode takes only a subset of JSON Schema, and gopi checks the
// answer itself).
type textFormat struct {
	Format formatSchema `json:"format"`
}

type formatSchema struct {
	Type   string          `json:"type"` // "json_schema"
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
	Strict bool            `json:"strict"`
}

type reasoning struct {
	Effort  string `json:"effort,omitempty"`
	Summary string `json:"summary,omitempty"`
}

// inputMessage is a user message; Content holds textParts and imageParts.
type inputMessage struct {
	Role    string `json:"role"`
	Content []any  `json:"content"`
}

// textPart is input_text in a user message, summary_text in a reasoning
// item.
type textPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type imagePart struct {
	Type     string `json:"type"`
	Detail   string `json:"detail"`
	ImageURL string `json:"image_url"`
}

// outputMessage is an earlier assistant text, sent back as the message
// item it came in.
type outputMessage struct {
	Type    string       `json:"type"`
	Role    string       `json:"role"`
	Content []outputText `json:"content"`
	Status  string       `json:"status"`
	ID      string       `json:"id"`
	Phase   string       `json:"phase,omitempty"`
}

type outputText struct {
	Type        string     `json:"type"`
	Text        string     `json:"text"`
	Annotations []struct{} `json:"annotations"`
}

// reasoningItem is an earlier reasoning item, sent back so that the model
// continues from its own reasoning.
type reasoningItem struct {
	Type             string     `json:"type"`
	ID               string     `json:"id"`
	Summary          []textPart `json:"summary"`
	EncryptedContent string     `json:"encrypted_content,omitempty"`
}

type functionCall struct {
	Type      string `json:"type"`
	ID        string `json:"id,omitempty"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type functionOutput struct {
	Type   string `json:"type"`
	CallID string `json:"call_id"`
	Output string `json:"output"`
}

// tool is a function tool. Strict is sent false: the API's default, true,
// demands schemas that close every object and require every property,
// which tools' schemas need not do.
type tool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      bool            `json:"strict"`
}

// includeEncrypted asks for each reasoning item's encrypted content,
// which is what a stateless request can send back.
const includeEncrypted = "reasoning.encrypted_content"

func buildBody(info ai.Info, req *ai.Request) ([]byte, error) {
	body, err := newRequest(info, req).encode()
	if err != nil {
		return nil, fmt.Errorf("encode responses request: %w", err)
	}
	return body, nil
}

// newRequest converts req into the body's structs.
func newRequest(info ai.Info, req *ai.Request) *request {
	r := &request{
		Model: info.ID, Instructions: req.SystemPrompt, Input: convertMessages(info, req.Messages),
		Stream: true, Temperature: req.Temperature,
	}
	if req.MaxTokens > 0 {
		r.MaxOutputTokens = req.MaxTokens
	}
	for _, t := range req.Tools {
		params := t.Parameters
		if len(params) == 0 || string(params) == "null" {
			params = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		r.Tools = append(r.Tools, tool{Type: "function", Name: t.Name, Description: t.Description, Parameters: params})
	}
	if info.Reasoning {
		r.Include = []string{includeEncrypted}
		r.Reasoning = &reasoning{Effort: effort(req.Thinking, info.ID), Summary: "auto"}
	}
	if len(req.OutputSchema) > 0 {
		r.Text = &textFormat{Format: formatSchema{Type: "json_schema", Name: "answer", Schema: req.OutputSchema}}
	}
	return r
}

// effort maps a thinking level to reasoning.effort; off (or no level)
// leaves the model's default. The codex and o-series models have no
// minimal, xhigh exists only on the newest, and gpt-5-pro reasons only
// at high: each falls back to the nearest level it has.
func effort(level ai.ThinkingLevel, id string) string {
	e := ""
	switch level {
	case ai.ThinkingMinimal:
		e = "minimal"
		if strings.HasPrefix(id, "o") || strings.Contains(id, "codex") {
			e = "low"
		}
	case ai.ThinkingLow, ai.ThinkingMedium, ai.ThinkingHigh:
		e = string(level)
	case ai.ThinkingXHigh:
		e = "high"
		for _, p := range []string{"gpt-5.1-codex-max", "gpt-5.2", "gpt-5.3", "gpt-5.4"} {
			if strings.Contains(id, p) {
				e = "xhigh"
			}
		}
	}
	if e != "" && strings.HasPrefix(id, "gpt-5-pro") {
		return "high"
	}
	return e
}
