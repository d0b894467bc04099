package anthropic

import (
	"encoding/json"
	"errors"
	"io"

	"gopi/pkg/ai"
	"gopi/pkg/ai/provider"
	"gopi/pkg/ai/sse"
)

// RedactedThinkingText is the readable text of a redacted thinking block;
// its opaque data is kept as the block's signature (pi's representation).
const RedactedThinkingText = "[Reasoning redacted]"

// errStopped says the consumer stopped iterating.
var errStopped = errors.New("consumer stopped")

type usage struct {
	InputTokens  *int64 `json:"input_tokens"`
	OutputTokens *int64 `json:"output_tokens"`
	CacheRead    *int64 `json:"cache_read_input_tokens"`
	CacheWrite   *int64 `json:"cache_creation_input_tokens"`
}

type streamEvent struct {
	Type    string `json:"type"`
	Message *struct {
		Usage usage `json:"usage"`
	} `json:"message"`
	Index        int `json:"index"`
	ContentBlock *struct {
		Type      string          `json:"type"`
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Input     json.RawMessage `json:"input"`
		Text      string          `json:"text"`
		Thinking  string          `json:"thinking"`
		Signature string          `json:"signature"`
		Data      string          `json:"data"`
	} `json:"content_block"`
	Delta *struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		PartialJSON string `json:"partial_json"`
		Thinking    string `json:"thinking"`
		Signature   string `json:"signature"`
		StopReason  string `json:"stop_reason"`
	} `json:"delta"`
	Usage *usage `json:"usage"`
}

// openBlock is a content block between its start and stop events.
type openBlock struct {
	idx        int    // index in the Builder's message
	kind       string // text | thinking | redacted_thinking | tool_use
	sig        string // thinking signature, or redacted data
	startInput string // tool input sent whole in the start event
	gotDelta   bool
}

type decoder struct {
	b         *ai.Builder
	info      ai.Info
	blocks    map[int]*openBlock
	usage     ai.Usage
	stop      string
	toolCalls bool
}

// run decodes events until message_stop. Ending any other way is an
// error: a truncation, a read failure, or an error event.
func (d *decoder) run(rd *sse.Reader, conn *provider.Conn) (ai.StopReason, error) {
	for {
		ev, err := rd.Next()
		switch {
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
			return "", conn.Err(truncated(err))
		case err != nil:
			return "", conn.Err(err)
		}
		done, err := d.handle(ev)
		if err != nil {
			return "", err
		}
		if done {
			return d.stopReason()
		}
	}
}

func truncated(cause error) error {
	return &ai.ProviderError{
		Class: ai.ClassNetwork, Retryable: true, Err: cause,
		Message: "the response stream ended before message_stop (truncated): " + cause.Error(),
	}
}

func (d *decoder) handle(ev sse.Event) (done bool, err error) {
	var e streamEvent
	if err := json.Unmarshal([]byte(ev.Data), &e); err != nil {
		return false, &ai.ProviderError{Class: ai.ClassNetwork, Retryable: true, Message: "malformed stream event: " + err.Error(), Err: err}
	}
	if e.Type == "" {
		e.Type = ev.Name
	}
	ok := true
	switch e.Type {
	case "message_start":
		if e.Message != nil {
			d.addUsage(e.Message.Usage)
		}
	case "content_block_start":
		ok = d.blockStart(&e)
	case "content_block_delta":
		ok = d.blockDelta(&e)
	case "content_block_stop":
		ok = d.blockStop(e.Index)
	case "message_delta":
		if e.Delta != nil && e.Delta.StopReason != "" {
			d.stop = e.Delta.StopReason
		}
		if e.Usage != nil {
			d.addUsage(*e.Usage)
		}
	case "message_stop":
		return true, nil
	case "error":
		return false, eventError(ev.Data)
	}
	// ping and event types added later are ignored, as the API asks.
	if !ok {
		return false, errStopped
	}
	return false, nil
}

func (d *decoder) blockStart(e *streamEvent) bool {
	cb := e.ContentBlock
	if cb == nil {
		return true
	}
	ob := &openBlock{kind: cb.Type}
	ok := true
	switch cb.Type {
	case "text":
		ob.idx, ok = d.b.TextStart()
		if ok && cb.Text != "" {
			ok = d.b.TextDelta(ob.idx, cb.Text)
		}
	case "thinking":
		ob.idx, ok = d.b.ThinkingStart()
		ob.sig = cb.Signature
		if ok && cb.Thinking != "" {
			ok = d.b.ThinkingDelta(ob.idx, cb.Thinking)
		}
	case "redacted_thinking":
		ob.idx, ok = d.b.ThinkingStart()
		ob.sig = cb.Data
		ok = ok && d.b.ThinkingDelta(ob.idx, RedactedThinkingText)
	case "tool_use":
		d.toolCalls = true
		ob.idx, ok = d.b.ToolCallStart(cb.ID, cb.Name)
		if in := string(cb.Input); in != "" && in != "{}" && in != "null" {
			ob.startInput = in
		}
	default:
		return true // server tool blocks and future kinds are not ours
	}
	d.blocks[e.Index] = ob
	return ok
}

func (d *decoder) blockDelta(e *streamEvent) bool {
	ob, dl := d.blocks[e.Index], e.Delta
	if ob == nil || dl == nil {
		return true
	}
	switch dl.Type {
	case "text_delta":
		return d.b.TextDelta(ob.idx, dl.Text)
	case "thinking_delta":
		return d.b.ThinkingDelta(ob.idx, dl.Thinking)
	case "signature_delta":
		ob.sig += dl.Signature
	case "input_json_delta":
		ob.gotDelta = true
		if dl.PartialJSON != "" {
			return d.b.ToolCallDelta(ob.idx, dl.PartialJSON)
		}
	}
	return true
}

func (d *decoder) blockStop(index int) bool {
	ob := d.blocks[index]
	if ob == nil {
		return true
	}
	delete(d.blocks, index)
	switch ob.kind {
	case "text":
		return d.b.TextEnd(ob.idx, "")
	case "thinking":
		return d.b.ThinkingEnd(ob.idx, ob.sig, false)
	case "redacted_thinking":
		return d.b.ThinkingEnd(ob.idx, ob.sig, true)
	default:
		if !ob.gotDelta && ob.startInput != "" && !d.b.ToolCallDelta(ob.idx, ob.startInput) {
			return false
		}
		return d.b.ToolCallEnd(ob.idx)
	}
}

// addUsage takes the values present: the API's usage is cumulative.
func (d *decoder) addUsage(u usage) {
	set := func(dst *int64, v *int64) {
		if v != nil {
			*dst = *v
		}
	}
	set(&d.usage.Input, u.InputTokens)
	set(&d.usage.Output, u.OutputTokens)
	set(&d.usage.CacheRead, u.CacheRead)
	set(&d.usage.CacheWrite, u.CacheWrite)
	d.usage.TotalTokens = 0
	d.b.SetUsage(d.info.WithCost(d.usage))
}

func (d *decoder) stopReason() (ai.StopReason, error) {
	switch d.stop {
	case "end_turn", "stop_sequence", "pause_turn":
		return ai.StopStop, nil
	case "max_tokens", "model_context_window_exceeded":
		return ai.StopLength, nil
	case "tool_use":
		return ai.StopToolUse, nil
	case "refusal", "sensitive":
		return "", &ai.ProviderError{Class: ai.ClassServer, Message: "the model declined to answer (stop_reason " + d.stop + ")"}
	}
	if d.toolCalls {
		return ai.StopToolUse, nil
	}
	return ai.StopStop, nil
}
