package anthropic

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"gopi/pkg/ai"
	"gopi/pkg/ai/provider"
)

// request is the body of POST /v1/messages.
type request struct {
	Model        string         `json:"model"`
	MaxTokens    int            `json:"max_tokens"`
	System       []*textBlock   `json:"system,omitempty"`
	Messages     []message      `json:"messages"`
	Tools        []tool         `json:"tools,omitempty"`
	ToolChoice   *toolChoice    `json:"tool_choice,omitempty"`
	Thinking     *thinkingParam `json:"thinking,omitempty"`
	OutputConfig *outputConfig  `json:"output_config,omitempty"`
	Temperature  *float64       `json:"temperature,omitempty"`
	Stream       bool           `json:"stream"`
}

type message struct {
	Role    string `json:"role"`
	Content []any  `json:"content"`
}

type cacheControl struct {
	Type string `json:"type"`
}

type textBlock struct {
	Type         string        `json:"type"`
	Text         string        `json:"text"`
	CacheControl *cacheControl `json:"cache_control,omitempty"`
	// plain: measuring found Text written as it is between quotes
	// (bodysize.go), so writing it need not scan it again.
	plain bool
}

type imageSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
}

type imageBlock struct {
	Type         string        `json:"type"`
	Source       imageSource   `json:"source"`
	CacheControl *cacheControl `json:"cache_control,omitempty"`
}

type thinkingBlock struct {
	Type      string `json:"type"`
	Thinking  string `json:"thinking"`
	Signature string `json:"signature"`
	plain     bool   // as textBlock's, for Thinking
}

type redactedBlock struct {
	Type string `json:"type"`
	Data string `json:"data"`
}

type toolUseBlock struct {
	Type  string          `json:"type"`
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

type toolResultBlock struct {
	Type         string        `json:"type"`
	ToolUseID    string        `json:"tool_use_id"`
	Content      []any         `json:"content,omitempty"`
	IsError      bool          `json:"is_error,omitempty"`
	CacheControl *cacheControl `json:"cache_control,omitempty"`
}

type tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// toolChoice forces tool use: "any" tool, or the "tool" Name.
type toolChoice struct {
	Type string `json:"type"`
	Name string `json:"name,omitempty"`
}

type thinkingParam struct {
	Type         string `json:"type"` // enabled | adaptive
	BudgetTokens int    `json:"budget_tokens,omitempty"`
}

type outputConfig struct {
	Effort string `json:"effort"`
}

// buildBody encodes the request; thinking reports whether thinking is on.
func buildBody(cfg Config, req *ai.Request) (b []byte, thinking bool, err error) {
	body, thinking, _, err := prepareBody(cfg, req)
	if err != nil {
		return nil, false, err
	}
	b, err = io.ReadAll(body.reader())
	return b, thinking, err
}

// prepareBody converts the request and checks that it encodes; the body
// is written as it is sent (see body). answer is true when the request
// forces the answer tool (see forceAnswer).
func prepareBody(cfg Config, req *ai.Request) (b *body, thinking, answer bool, err error) {
	r := newRequest(cfg, req)
	if b, err = newBody(r); err != nil {
		return nil, false, false, fmt.Errorf("encode anthropic request: %w", err)
	}
	return b, r.Thinking != nil, r.ToolChoice != nil, nil
}

// newRequest converts req into the body's structs.
func newRequest(cfg Config, req *ai.Request) *request {
	r := &request{Model: cfg.Info.ID, Stream: true, MaxTokens: baseMaxTokens(cfg.Info, req.MaxTokens)}
	var cc *cacheControl
	if !cfg.NoCache {
		cc = &cacheControl{Type: "ephemeral"}
	}
	if req.SystemPrompt != "" {
		r.System = []*textBlock{{Type: "text", Text: req.SystemPrompt, CacheControl: cc}}
	}
	r.Messages = convertMessages(provider.Normalize(req.Messages, cfg.Info))
	if cc != nil {
		markLastUser(r.Messages, cc)
	}
	for _, t := range req.Tools {
		r.Tools = append(r.Tools, tool{Name: t.Name, Description: t.Description, InputSchema: schema(t.Parameters)})
	}
	applyThinking(r, cfg.Info, req)
	if r.Thinking == nil {
		r.Temperature = req.Temperature // the API rejects a temperature with thinking on
	}
	forceAnswer(r, req)
	return r
}

// AnswerTool is the tool whose input is the final answer when a request
// asks for structured output (ai.Request.OutputSchema).
const AnswerTool = "final_answer"

const answerDescription = "Give your final answer: call this tool once the work is done, with the answer as its input. " +
	"The input must satisfy the schema; it is the answer, nothing else is."

// forceAnswer is Anthropic's structured output by tool use: the schema
// becomes the input schema of one more tool, and tool_choice makes the
// model call a tool on every request, the answer tool when the work is
// done ("any" beside other tools, that tool alone without them). The
// decoder turns the answer tool's call back into the answer's text. Left
// to the prompt alone when the API cannot force a tool (thinking on), when
// the schema is not an object's (a tool's input is one), or when a tool of
// the same name is already there.
func forceAnswer(r *request, req *ai.Request) {
	if len(req.OutputSchema) == 0 || r.Thinking != nil || !objectSchema(req.OutputSchema) {
		return
	}
	for _, t := range r.Tools {
		if t.Name == AnswerTool {
			return
		}
	}
	r.ToolChoice = &toolChoice{Type: "any"}
	if len(r.Tools) == 0 {
		r.ToolChoice = &toolChoice{Type: "tool", Name: AnswerTool}
	}
	r.Tools = append(r.Tools, tool{Name: AnswerTool, Description: answerDescription, InputSchema: req.OutputSchema})
}

// objectSchema reports whether a schema asks for a JSON object at its top.
func objectSchema(s json.RawMessage) bool {
	var top struct {
		Type any `json:"type"`
	}
	return json.Unmarshal(s, &top) == nil && top.Type == "object"
}

func schema(p json.RawMessage) json.RawMessage {
	if len(p) == 0 || string(p) == "null" {
		return json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return p
}

// baseMaxTokens is the requested output limit, or the model's (at most 32000).
func baseMaxTokens(info ai.Info, asked int) int {
	if asked > 0 {
		return asked
	}
	if info.MaxOutputTokens > 0 {
		return min(info.MaxOutputTokens, 32000)
	}
	return 16384
}

// Thinking budgets per level (pi's defaults); xhigh gets high's budget.
var budgets = map[ai.ThinkingLevel]int{
	ai.ThinkingMinimal: 1024,
	ai.ThinkingLow:     2048,
	ai.ThinkingMedium:  8192,
	ai.ThinkingHigh:    16384,
	ai.ThinkingXHigh:   16384,
}

// minBudget is the smallest budget the API accepts.
const minBudget = 1024

func applyThinking(r *request, info ai.Info, req *ai.Request) {
	budget, ok := budgets[req.Thinking]
	if !ok || !info.Reasoning {
		return
	}
	if adaptive(info.ID) {
		r.Thinking = &thinkingParam{Type: "adaptive"}
		r.OutputConfig = &outputConfig{Effort: effort(req.Thinking, info.ID)}
		return
	}
	maxTokens := r.MaxTokens + budget
	if info.MaxOutputTokens > 0 {
		maxTokens = min(maxTokens, info.MaxOutputTokens)
	}
	if maxTokens <= budget {
		budget = maxTokens - minBudget
	}
	if budget < minBudget {
		return
	}
	r.MaxTokens = maxTokens
	r.Thinking = &thinkingParam{Type: "enabled", BudgetTokens: budget}
}

// adaptive reports whether the model decides its own thinking budget
// (Opus 4.6, Sonnet 4.6), taking an effort instead of budget_tokens.
func adaptive(id string) bool {
	for _, s := range []string{"opus-4-6", "opus-4.6", "sonnet-4-6", "sonnet-4.6"} {
		if strings.Contains(id, s) {
			return true
		}
	}
	return false
}

func effort(level ai.ThinkingLevel, id string) string {
	switch level {
	case ai.ThinkingMinimal, ai.ThinkingLow:
		return "low"
	case ai.ThinkingMedium:
		return "medium"
	case ai.ThinkingXHigh:
		if strings.Contains(id, "opus-4-6") || strings.Contains(id, "opus-4.6") {
			return "max"
		}
	}
	return "high"
}
