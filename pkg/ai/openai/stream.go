package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"gopi/pkg/ai"
	"gopi/pkg/ai/provider"
	"gopi/pkg/ai/sse"
)

// errStopped says the consumer stopped iterating.
var errStopped = errors.New("consumer stopped")

type chunk struct {
	Choices []struct {
		Delta struct {
			Content          *string         `json:"content"`
			ReasoningContent *string         `json:"reasoning_content"`
			Reasoning        *string         `json:"reasoning"`
			ToolCalls        []toolCallDelta `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens        int64          `json:"prompt_tokens"`
		CompletionTokens    int64          `json:"completion_tokens"`
		TotalTokens         int64          `json:"total_tokens"`
		PromptTokensDetails *promptDetails `json:"prompt_tokens_details"`
	} `json:"usage"`
	Error json.RawMessage `json:"error"`
}

type promptDetails struct {
	CachedTokens int64 `json:"cached_tokens"`
}

type toolCallDelta struct {
	Index    int    `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// decoder turns chunks into Builder calls. Text and reasoning each have at
// most one open block; tool calls stay open, keyed by their index, until
// the finish_reason, because servers interleave their fragments.
type decoder struct {
	b        *ai.Builder
	info     ai.Info
	text     int // open text block, -1 when none
	thinking int // open thinking block, -1 when none
	field    string
	tools    map[int]int // tool call index → block
	finish   string
	sawTools bool
}

func newDecoder(b *ai.Builder, info ai.Info) *decoder {
	return &decoder{b: b, info: info, text: -1, thinking: -1, tools: map[int]int{}}
}

// run decodes until [DONE]. A stream that ends after a finish_reason but
// without [DONE] (or the usage chunk) still counts as complete; one that
// ends before any finish_reason is a truncation.
func (d *decoder) run(ctx context.Context, rd *sse.Reader, conn *provider.Conn) (ai.StopReason, error) {
	for {
		ev, err := rd.Next()
		if err != nil {
			if d.finish != "" && ctx.Err() == nil {
				return d.end()
			}
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return "", conn.Err(truncated(err))
			}
			return "", conn.Err(err)
		}
		if ev.Data == "[DONE]" {
			return d.end()
		}
		if err := d.handle(ev.Data); err != nil {
			return "", err
		}
	}
}

func truncated(cause error) error {
	return &ai.ProviderError{
		Class: ai.ClassNetwork, Retryable: true, Err: cause,
		Message: "the response stream ended before its finish_reason (truncated): " + cause.Error(),
	}
}

func (d *decoder) handle(data string) error {
	var c chunk
	if err := json.Unmarshal([]byte(data), &c); err != nil {
		return &ai.ProviderError{Class: ai.ClassNetwork, Retryable: true, Message: "malformed stream chunk: " + err.Error(), Err: err}
	}
	if len(c.Error) > 0 && string(c.Error) != "null" {
		ae, _ := parseError([]byte(data))
		return streamError(ae)
	}
	if c.Usage != nil {
		d.setUsage(c.Usage.PromptTokens, c.Usage.CompletionTokens, c.Usage.TotalTokens, c.Usage.PromptTokensDetails)
	}
	if len(c.Choices) == 0 {
		return nil
	}
	ch := c.Choices[0]
	ok := d.reasoning(ch.Delta.ReasoningContent, reasoningFields[0]) &&
		d.reasoning(ch.Delta.Reasoning, reasoningFields[1]) &&
		d.content(ch.Delta.Content)
	for _, tc := range ch.Delta.ToolCalls {
		ok = ok && d.toolCall(tc)
	}
	if ok && ch.FinishReason != nil && *ch.FinishReason != "" {
		d.finish = *ch.FinishReason
		ok = d.closeAll()
	}
	if !ok {
		return errStopped
	}
	return nil
}

func (d *decoder) reasoning(s *string, field string) bool {
	if s == nil || *s == "" {
		return true
	}
	if d.thinking < 0 {
		if !d.closeText() {
			return false
		}
		var ok bool
		if d.thinking, ok = d.b.ThinkingStart(); !ok {
			return false
		}
		d.field = field
	}
	return d.b.ThinkingDelta(d.thinking, *s)
}

func (d *decoder) content(s *string) bool {
	if s == nil || *s == "" {
		return true
	}
	if d.text < 0 {
		if !d.closeThinking() {
			return false
		}
		var ok bool
		if d.text, ok = d.b.TextStart(); !ok {
			return false
		}
	}
	return d.b.TextDelta(d.text, *s)
}

func (d *decoder) toolCall(tc toolCallDelta) bool {
	idx, open := d.tools[tc.Index]
	if !open {
		if !d.closeText() || !d.closeThinking() {
			return false
		}
		id := tc.ID
		if id == "" {
			id = fmt.Sprintf("call_%d", tc.Index)
		}
		var ok bool
		if idx, ok = d.b.ToolCallStart(id, tc.Function.Name); !ok {
			return false
		}
		d.tools[tc.Index] = idx
		d.sawTools = true
	}
	if tc.Function.Arguments == "" {
		return true
	}
	return d.b.ToolCallDelta(idx, tc.Function.Arguments)
}

func (d *decoder) closeText() bool {
	if d.text < 0 {
		return true
	}
	idx := d.text
	d.text = -1
	return d.b.TextEnd(idx, "")
}

func (d *decoder) closeThinking() bool {
	if d.thinking < 0 {
		return true
	}
	idx := d.thinking
	d.thinking = -1
	return d.b.ThinkingEnd(idx, d.field, false)
}

// closeAll ends every open block, tool calls in index order.
func (d *decoder) closeAll() bool {
	if !d.closeThinking() || !d.closeText() {
		return false
	}
	keys := make([]int, 0, len(d.tools))
	for k := range d.tools {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		idx := d.tools[k]
		delete(d.tools, k)
		if !d.b.ToolCallEnd(idx) {
			return false
		}
	}
	return true
}

// setUsage records the final usage chunk; prompt_tokens includes the
// cached tokens, which are priced apart.
func (d *decoder) setUsage(prompt, completion, total int64, details *promptDetails) {
	var cached int64
	if details != nil {
		cached = details.CachedTokens
	}
	u := ai.Usage{Input: prompt - cached, Output: completion, CacheRead: cached, TotalTokens: total}
	d.b.SetUsage(d.info.WithCost(u))
}

// end closes what is open and maps the finish reason.
func (d *decoder) end() (ai.StopReason, error) {
	if !d.closeAll() {
		return "", errStopped
	}
	switch d.finish {
	case "length":
		return ai.StopLength, nil
	case "tool_calls", "function_call":
		return ai.StopToolUse, nil
	case "content_filter":
		return "", &ai.ProviderError{Class: ai.ClassServer, Message: "the answer was stopped by the server's content filter (finish_reason content_filter)"}
	}
	if d.sawTools {
		return ai.StopToolUse, nil
	}
	return ai.StopStop, nil
}
