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
	// CacheCreation splits CacheWrite by cache lifetime.
	CacheCreation *cacheCreation `json:"cache_creation"`
}

type cacheCreation struct {
	Ephemeral1h *int64 `json:"ephemeral_1h_input_tokens"`
}

// streamEvent is any event of the stream; fastEvent reads the same
// fields (fastevent.go).
type streamEvent struct {
	Type         string        `json:"type"`
	Message      *eventMessage `json:"message"`
	Index        int           `json:"index"`
	ContentBlock *eventBlock   `json:"content_block"`
	Delta        *deltaBody    `json:"delta"`
	Usage        *usage        `json:"usage"`
}

type eventMessage struct {
	ID    string `json:"id"`
	Model string `json:"model"`
	Usage usage  `json:"usage"`
}

type eventBlock struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"`
	Data      string          `json:"data"`
}

type deltaBody struct {
	Type        string `json:"type"`
	Text        string `json:"text"`
	PartialJSON string `json:"partial_json"`
	Thinking    string `json:"thinking"`
	Signature   string `json:"signature"`
	StopReason  string `json:"stop_reason"`
}

// openBlock is a content block between its start and stop events.
type openBlock struct {
	idx        int    // index in the Builder's message
	kind       string // text | thinking | redacted_thinking | tool_use, or a kind not ours
	foreign    bool   // a server tool block or a future kind: tracked, not built
	sig        string // thinking signature, or redacted data
	startInput string // tool input sent whole in the start event
	gotDelta   bool
	answer     bool // a call of AnswerTool, built as the answer's text
}

type decoder struct {
	b         *ai.Builder
	info      ai.Info
	blocks    map[int]*openBlock // open blocks by the stream's index
	used      map[int]bool       // every index started in this message
	started   bool               // message_start seen
	stopped   bool               // message_stop seen
	onStop    func()             // called once at message_stop
	usage     ai.Usage
	stop      string
	toolCalls bool
	// answer: the request forced AnswerTool, whose call is the answer.
	answer bool
}

func newDecoder(b *ai.Builder, info ai.Info) *decoder {
	return &decoder{b: b, info: info, blocks: map[int]*openBlock{}, used: map[int]bool{}}
}

// run decodes events until message_stop, then reads on to the end of the
// body so that an event after message_stop is caught. Ending any other way
// is an error: a truncation, a read failure, an error event or a break of
// the stream grammar.
func (d *decoder) run(rd *sse.Reader, conn *provider.Conn) (ai.StopReason, error) {
	for {
		ev, err := rd.Next()
		switch {
		case d.stopped && err != nil:
			// The message was whole; a connection that fails after it
			// loses nothing.
			return d.stopReason()
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
			return "", conn.Err(truncated(err))
		case err != nil:
			return "", conn.Err(err)
		}
		if err := d.handle(ev); err != nil {
			return "", err
		}
	}
}

func truncated(cause error) error {
	return &ai.ProviderError{
		Class: ai.ClassNetwork, Retryable: true, Err: cause,
		Message: "the response stream ended before message_stop (truncated): " + cause.Error(),
	}
}

func (d *decoder) handle(ev sse.Event) error {
	if e, dl, ok := fastDelta(ev.Data); ok {
		if err := d.order(e.Type); err != nil {
			return err
		}
		e.Delta = &dl
		return d.blockDelta(&e)
	}
	e, ok := fastEvent(ev.Data)
	if !ok {
		if err := json.Unmarshal([]byte(ev.Data), &e); err != nil {
			return &ai.ProviderError{Class: ai.ClassNetwork, Retryable: true, Message: "malformed stream event: " + err.Error(), Err: err}
		}
	}
	if e.Type == "" {
		e.Type = ev.Name
	}
	if e.Type == "error" {
		return eventError(ev.Data)
	}
	if !messageEvents[e.Type] {
		return nil // ping and event types added later are ignored, as the API asks
	}
	if err := d.order(e.Type); err != nil {
		return err
	}
	switch e.Type {
	case "message_start":
		d.started = true
		if e.Message != nil {
			d.addUsage(e.Message.Usage)
			d.b.SetResponseID(e.Message.ID)
			d.b.SetResponseModel(d.info.ID, e.Message.Model)
		}
	case "content_block_start":
		return d.blockStart(&e)
	case "content_block_delta":
		return d.blockDelta(&e)
	case "content_block_stop":
		return d.blockStop(e.Index)
	case "message_delta":
		if e.Delta != nil && e.Delta.StopReason != "" {
			d.stop = e.Delta.StopReason
			d.b.SetRawStopReason(d.stop)
		}
		if e.Usage != nil {
			d.addUsage(*e.Usage)
		}
	case "message_stop":
		return d.messageStop()
	}
	return nil
}

func (d *decoder) blockStart(e *streamEvent) error {
	cb := e.ContentBlock
	if cb == nil {
		return grammarError("content_block_start at index %d has no content_block", e.Index)
	}
	if d.used[e.Index] {
		return grammarError("content_block_start at index %d, which was already started", e.Index)
	}
	d.used[e.Index] = true
	ob := &openBlock{kind: cb.Type}
	d.blocks[e.Index] = ob
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
		if d.answer && cb.Name == AnswerTool {
			ob.answer = true
			ob.idx, ok = d.b.TextStart()
		} else {
			d.toolCalls = true
			ob.idx, ok = d.b.ToolCallStart(cb.ID, cb.Name)
		}
		if in := string(cb.Input); in != "" && in != "null" && (in != "{}" || ob.answer) {
			ob.startInput = in // an answer of {} is one; a call's {} is the usual empty start
		}
	default:
		ob.foreign = true // server tool blocks and future kinds are not ours
	}
	return consumer(ok)
}

func (d *decoder) blockDelta(e *streamEvent) error {
	ob, dl := d.blocks[e.Index], e.Delta
	if err := d.deltaFits(e.Index, ob, dl); err != nil || ob.foreign {
		return err
	}
	ok := true
	switch dl.Type {
	case "text_delta":
		ok = d.b.TextDelta(ob.idx, dl.Text)
	case "thinking_delta":
		ok = d.b.ThinkingDelta(ob.idx, dl.Thinking)
	case "signature_delta":
		ob.sig += dl.Signature
	case "input_json_delta":
		ob.gotDelta = true
		switch {
		case dl.PartialJSON == "":
		case ob.answer:
			ok = d.b.TextDelta(ob.idx, dl.PartialJSON)
		default:
			ok = d.b.ToolCallDelta(ob.idx, dl.PartialJSON)
		}
	}
	return consumer(ok)
}

func (d *decoder) blockStop(index int) error {
	ob := d.blocks[index]
	if ob == nil {
		return grammarError("content_block_stop for index %d, which is not open", index)
	}
	delete(d.blocks, index)
	ok := true
	switch ob.kind {
	case "text":
		ok = d.b.TextEnd(ob.idx, "")
	case "thinking":
		ok = d.b.ThinkingEnd(ob.idx, ob.sig, false)
	case "redacted_thinking":
		ok = d.b.ThinkingEnd(ob.idx, ob.sig, true)
	case "tool_use":
		if ob.answer {
			if !ob.gotDelta && ob.startInput != "" && !d.b.TextDelta(ob.idx, ob.startInput) {
				return errStopped
			}
			ok = d.b.TextEnd(ob.idx, "")
			break
		}
		if !ob.gotDelta && ob.startInput != "" && !d.b.ToolCallDelta(ob.idx, ob.startInput) {
			return errStopped
		}
		ok = d.b.ToolCallEnd(ob.idx)
	}
	return consumer(ok)
}

// consumer turns a Builder's "stop" into the attempt's end.
func consumer(ok bool) error {
	if !ok {
		return errStopped
	}
	return nil
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
	if cc := u.CacheCreation; cc != nil && cc.Ephemeral1h != nil {
		n := *cc.Ephemeral1h
		d.usage.CacheWrite1h = &n
	}
	if d.usage.CacheWrite1h == nil { // pi 1.6 records 0 when the API gives no split
		var n int64
		d.usage.CacheWrite1h = &n
	}
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
		if !d.toolCalls { // only the answer tool: the answer
			return ai.StopStop, nil
		}
		return ai.StopToolUse, nil
	case "refusal", "sensitive":
		return "", ai.Refused("the model declined to answer (stop_reason " + d.stop + ")")
	}
	if d.toolCalls {
		return ai.StopToolUse, nil
	}
	return ai.StopStop, nil
}
