package openai

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"time"
	"unsafe"

	"gopi/pkg/ai"
	"gopi/pkg/ai/provider"
	"gopi/pkg/ai/sse"
)

// errStopped says the consumer stopped iterating.
var errStopped = errors.New("consumer stopped")

// decoder turns chunks into Builder calls. Text and reasoning each have at
// most one open block; tool calls stay open until the finish_reason,
// because servers interleave their fragments.
type decoder struct {
	b        *ai.Builder
	info     ai.Info
	text     int // open text block, -1 when none
	thinking int // open thinking block, -1 when none
	// firstThinking is the message's first thinking block, which carries
	// the reasoning_details; -1 when none.
	firstThinking int
	field         string
	calls         calls
	details       details
	finish        string
	refused       bool // a delta held a refusal
	// done says the stream has said all it will: the usage chunk came
	// after the finish_reason.
	done bool
	// finished is called once, at the finish_reason.
	finished func()
	// chunk is reused: its choices keep their backing array.
	chunk chunk
}

// newDecoder returns a decoder; now (unix milliseconds) goes into the ids
// of calls the server sends without one.
func newDecoder(b *ai.Builder, info ai.Info, now int64, finished func()) *decoder {
	d := &decoder{b: b, info: info, text: -1, thinking: -1, firstThinking: -1, finished: finished}
	d.calls.idPrefix = "call_" + strconv.FormatInt(now, 10) + "_"
	return d
}

// run decodes until [DONE], or the usage chunk that follows the
// finish_reason. A stream that ends after a finish_reason but without
// [DONE] or the usage chunk (closed, cut, or cut short by the grace the
// caller gives it after the finish_reason) still counts as complete; one
// that ends before any finish_reason is a truncation.
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
		if d.done {
			return d.end()
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
	choices := d.chunk.Choices[:cap(d.chunk.Choices)]
	clear(choices)
	d.chunk = chunk{Choices: choices[:0]}
	c := &d.chunk
	// Unmarshal only reads data, and copies what it keeps.
	if err := json.Unmarshal(unsafe.Slice(unsafe.StringData(data), len(data)), c); err != nil {
		return &ai.ProviderError{Class: ai.ClassNetwork, Retryable: true, Message: "malformed stream chunk: " + err.Error(), Err: err}
	}
	if len(c.Error) > 0 && string(c.Error) != "null" {
		ae, _ := parseError([]byte(data))
		return streamError(ae)
	}
	if c.Usage == nil && c.XGroq != nil {
		c.Usage = c.XGroq.Usage
	}
	d.b.SetResponseID(c.ID)
	d.b.SetResponseModel(d.info.ID, c.Model)
	if c.Usage != nil {
		d.b.SetUsage(d.info.WithCost(c.Usage.tokens()))
	}
	if len(c.Choices) == 0 {
		d.done = d.finish != "" && c.Usage != nil
		return nil
	}
	ch := &c.Choices[0]
	if c.Usage == nil && ch.Usage != nil {
		d.b.SetUsage(d.info.WithCost(ch.Usage.tokens()))
	}
	if !d.delta(&ch.Delta) {
		return errStopped
	}
	if ch.FinishReason != nil && *ch.FinishReason != "" && d.finish == "" {
		d.finish = *ch.FinishReason
		d.b.SetRawStopReason(d.finish)
		if !d.closeAll() {
			return errStopped
		}
		if d.finished != nil {
			d.finished()
		}
	}
	return nil
}

// delta applies one choice's delta; false means the consumer stopped.
func (d *decoder) delta(dl *delta) bool {
	d.details.add(dl.ReasoningDetails)
	// The first reasoning field with text counts: servers that fill two
	// with the same text mean it once.
	ok := true
	switch {
	case dl.ReasoningContent != nil && *dl.ReasoningContent != "":
		ok = d.reasoning(*dl.ReasoningContent, reasoningFields[0])
	case dl.Reasoning != nil && *dl.Reasoning != "":
		ok = d.reasoning(*dl.Reasoning, reasoningFields[1])
	}
	ok = ok && dl.Content.each(d.content, d.partThinking)
	if dl.Refusal != nil && *dl.Refusal != "" {
		d.refused = true
		ok = ok && d.content(*dl.Refusal)
	}
	for i := range dl.ToolCalls {
		ok = ok && d.closeText() && d.closeThinking() && d.calls.add(d.b, &dl.ToolCalls[i])
	}
	return ok
}

// partThinking is reasoning sent as a thinking part of the content
// (Magistral); it has no field of its own to be sent back in.
func (d *decoder) partThinking(s string) bool { return d.reasoning(s, "") }

func (d *decoder) reasoning(s, field string) bool {
	if s == "" {
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
		if d.firstThinking < 0 {
			d.firstThinking = d.thinking
		}
		d.field = field
	}
	return d.b.ThinkingDelta(d.thinking, s)
}

func (d *decoder) content(s string) bool {
	if s == "" {
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
	return d.b.TextDelta(d.text, s)
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

// closeAll ends every open block, tool calls in the order they started,
// and puts the reasoning_details on the first thinking block (on a new,
// empty one when the server sent no reasoning text).
func (d *decoder) closeAll() bool {
	if !d.closeThinking() || !d.closeText() || !d.calls.endAll(d.b) {
		return false
	}
	sig := d.details.json()
	if sig == "" {
		return true
	}
	if d.firstThinking >= 0 {
		d.b.SetThinkingSignature(d.firstThinking, sig)
		return true
	}
	idx, ok := d.b.ThinkingStart()
	d.firstThinking = idx
	return ok && d.b.ThinkingEnd(idx, sig, false)
}

// end closes what is open and maps the finish reason.
func (d *decoder) end() (ai.StopReason, error) {
	if !d.closeAll() {
		return "", errStopped
	}
	if d.refused {
		return "", ai.Refused("the model declined to answer (a refusal in the message, finish_reason " + d.finish + ")")
	}
	switch d.finish {
	case "length":
		return ai.StopLength, nil
	case "tool_calls", "function_call":
		return ai.StopToolUse, nil
	case "content_filter":
		return "", ai.Refused("the answer was stopped by the server's content filter (finish_reason content_filter)")
	}
	if len(d.calls.all) > 0 {
		return ai.StopToolUse, nil
	}
	return ai.StopStop, nil
}

// finishGrace is how long a stream may stay open after its finish_reason
// for the usage chunk and [DONE] unless Config says otherwise. Servers
// send both at once; one that keeps the connection open after the answer
// is complete must not hold the turn until the idle timeout.
const finishGrace = 2 * time.Second
