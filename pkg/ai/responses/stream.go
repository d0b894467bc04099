package responses

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"

	"gopi/internal/pijson"
	"gopi/pkg/ai"
	"gopi/pkg/ai/provider"
	"gopi/pkg/ai/sse"
)

// errStopped says the consumer stopped iterating.
var errStopped = errors.New("consumer stopped")

// streamEvent is any event of the stream; only the fields of its type are
// set. Events gopi has no use for (response.created, content_part.*,
// output_text.done, annotations…) are read and skipped.
type streamEvent struct {
	Type        string          `json:"type"`
	OutputIndex int             `json:"output_index"`
	Delta       string          `json:"delta"`
	Arguments   string          `json:"arguments"`
	Item        json.RawMessage `json:"item"`
	Response    *response       `json:"response"`
	// The error event: code and message at the top, or an error object.
	Code    json.RawMessage `json:"code"`
	Message string          `json:"message"`
	Error   *apiError       `json:"error"`
}

// response is the response object of the terminal events.
type response struct {
	Status string `json:"status"`
	Error  *struct {
		Code    json.RawMessage `json:"code"`
		Message string          `json:"message"`
	} `json:"error"`
	IncompleteDetails *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
	Usage *usage `json:"usage"`
}

// usage counts tokens; input_tokens includes the cached ones and
// output_tokens the reasoning ones (output_tokens_details.reasoning_tokens,
// recorded as usage.reasoning, as pi's).
type usage struct {
	InputTokens        int64 `json:"input_tokens"`
	InputTokensDetails *struct {
		CachedTokens int64 `json:"cached_tokens"`
	} `json:"input_tokens_details"`
	OutputTokens        int64 `json:"output_tokens"`
	OutputTokensDetails *struct {
		ReasoningTokens int64 `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
	TotalTokens int64 `json:"total_tokens"`
}

// streamItem is an output item (output_item.added and .done); a reasoning
// item's serialization is also what a thinking block's signature holds.
type streamItem struct {
	Type             string `json:"type"`
	ID               string `json:"id"`
	CallID           string `json:"call_id"`
	Name             string `json:"name"`
	Arguments        string `json:"arguments"`
	Phase            string `json:"phase"`
	EncryptedContent string `json:"encrypted_content"`
	Summary          []struct {
		Text string `json:"text"`
	} `json:"summary"`
	Content []struct {
		Type    string `json:"type"`
		Text    string `json:"text"`
		Refusal string `json:"refusal"`
	} `json:"content"`
}

// openItem is an output item between its added and done events.
type openItem struct {
	idx   int    // block in the Builder's message
	kind  string // reasoning | message | function_call
	parts int    // reasoning summary parts begun
	got   bool   // a delta arrived (text, summary or arguments)
}

// decoder turns events into Builder calls. Items stay open, keyed by
// their output_index, until their done event: a server may interleave
// them, as Chat Completions servers interleave tool calls.
type decoder struct {
	b        *ai.Builder
	info     ai.Info
	items    map[int]*openItem
	sawTools bool
	refused  bool // a refusal's text or content part came
}

func newDecoder(b *ai.Builder, info ai.Info) *decoder {
	return &decoder{b: b, info: info, items: map[int]*openItem{}}
}

// run decodes events until a terminal one: response.completed (or
// response.incomplete, cut at the output limit) ends the answer,
// response.failed and error fail it. Ending any other way is a
// truncation.
func (d *decoder) run(rd *sse.Reader, conn *provider.Conn) (ai.StopReason, error) {
	for {
		ev, err := rd.Next()
		switch {
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
			return "", conn.Err(truncated(err))
		case err != nil:
			return "", conn.Err(err)
		}
		reason, done, err := d.handle([]byte(ev.Data))
		if done || err != nil {
			return reason, err
		}
	}
}

func truncated(cause error) error {
	return &ai.ProviderError{
		Class: ai.ClassNetwork, Retryable: true, Err: cause,
		Message: "the response stream ended before response.completed (truncated): " + cause.Error(),
	}
}

// handle applies one event; done says it was terminal.
func (d *decoder) handle(data []byte) (ai.StopReason, bool, error) {
	if out, delta, typ, ok := deltaEvent(data); ok {
		d.refused = d.refused || typ == refusalDelta
		if !d.delta(out, delta) {
			return "", true, errStopped
		}
		return "", false, nil
	}
	var ev streamEvent
	if err := json.Unmarshal(data, &ev); err != nil {
		return "", true, &ai.ProviderError{Class: ai.ClassNetwork, Retryable: true, Message: "malformed stream event: " + err.Error(), Err: err}
	}
	ok := true
	switch ev.Type {
	case "response.output_item.added":
		_, ok = d.added(ev.OutputIndex, ev.Item)
	case "response.reasoning_summary_part.added":
		ok = d.summaryPart(ev.OutputIndex)
	case "response.reasoning_summary_text.delta", "response.reasoning_text.delta", "response.output_text.delta",
		refusalDelta, "response.function_call_arguments.delta":
		d.refused = d.refused || ev.Type == refusalDelta
		ok = d.delta(ev.OutputIndex, ev.Delta)
	case "response.function_call_arguments.done":
		ok = d.whole(ev.OutputIndex, ev.Arguments)
	case "response.output_item.done":
		ok = d.itemDone(ev.OutputIndex, ev.Item)
	case "response.completed", "response.incomplete":
		reason, err := d.finish(ev.Response)
		return reason, true, err
	case "response.failed":
		if ev.Response != nil {
			d.b.SetRawStopReason(ev.Response.Status)
		}
		return "", true, failed(ev.Response)
	case "error":
		return "", true, errorEvent(ev)
	}
	if !ok {
		return "", true, errStopped
	}
	return "", false, nil
}

// deltaTypes are the events that carry a fragment of an item's text or
// arguments: nearly every event of a stream.
var deltaTypes = map[string]bool{
	"response.reasoning_summary_text.delta": true, "response.reasoning_text.delta": true, "response.output_text.delta": true,
	"response.refusal.delta": true, "response.function_call_arguments.delta": true,
}

// refusalDelta is the event of a refusal's text: the model declined.
const refusalDelta = "response.refusal.delta"

// deltaEvent reads a delta event without reflection: its type,
// output_index and delta. ok is false for any other event, and for
// anything unusual, which encoding/json then decodes (or rejects) as it
// does every event.
func deltaEvent(data []byte) (out int, delta, typ string, ok bool) {
	fields, null, err := pijson.Fields(data)
	if err != nil || null {
		return 0, "", "", false
	}
	var idx int64
	for _, f := range fields {
		switch f.Key {
		case "type":
			typ, err = pijson.Unquote(f.Value)
		case "output_index":
			err = pijson.Int(f.Key, f.Value, &idx)
		case "delta":
			delta, err = pijson.Unquote(f.Value)
		}
		if err != nil {
			return 0, "", "", false
		}
	}
	return int(idx), delta, typ, deltaTypes[typ] && int64(int(idx)) == idx
}

// added opens the block of a reasoning, message or function call item;
// other items (hosted tools gopi does not ask for) are skipped.
func (d *decoder) added(out int, raw json.RawMessage) (*openItem, bool) {
	var it streamItem
	if len(raw) == 0 || json.Unmarshal(raw, &it) != nil {
		return nil, true
	}
	if old := d.items[out]; old != nil {
		return old, true
	}
	o := &openItem{kind: it.Type}
	var ok bool
	switch it.Type {
	case "reasoning":
		o.idx, ok = d.b.ThinkingStart()
	case "message":
		o.idx, ok = d.b.TextStart()
	case "function_call":
		o.idx, ok = d.b.ToolCallStart(joinID(it.CallID, it.ID), it.Name)
		d.sawTools = true
		if ok && it.Arguments != "" {
			o.got = true
			ok = d.b.ToolCallDelta(o.idx, it.Arguments)
		}
	default:
		return nil, true
	}
	d.items[out] = o
	return o, ok
}

// joinID is a tool call's id: the call_id and, after "|", the item id.
func joinID(callID, itemID string) string {
	if itemID == "" {
		return callID
	}
	return callID + "|" + itemID
}

// summaryPart separates the summary parts of one reasoning item with a
// blank line, as pi joins them.
func (d *decoder) summaryPart(out int) bool {
	o := d.items[out]
	if o == nil || o.kind != "reasoning" {
		return true
	}
	o.parts++
	if o.parts > 1 && o.got {
		return d.b.ThinkingDelta(o.idx, "\n\n")
	}
	return true
}

func (d *decoder) delta(out int, s string) bool {
	o := d.items[out]
	if o == nil || s == "" {
		return true
	}
	o.got = true
	switch o.kind {
	case "reasoning":
		return d.b.ThinkingDelta(o.idx, s)
	case "message":
		return d.b.TextDelta(o.idx, s)
	}
	return d.b.ToolCallDelta(o.idx, s)
}

// whole takes an item's complete text from a done event when no delta of
// it came (servers that do not stream every part).
func (d *decoder) whole(out int, s string) bool {
	if o := d.items[out]; o != nil && !o.got {
		return d.delta(out, s)
	}
	return true
}

// itemDone closes an item's block. A reasoning item is kept whole as the
// thinking block's signature, a message item's id as the text's.
func (d *decoder) itemDone(out int, raw json.RawMessage) bool {
	o, ok := d.added(out, raw)
	if o == nil || !ok {
		return ok
	}
	var it streamItem
	_ = json.Unmarshal(raw, &it) // added read it already
	delete(d.items, out)
	switch o.kind {
	case "reasoning":
		if !o.got && !d.summaryText(o, it) {
			return false
		}
		return d.b.ThinkingEnd(o.idx, compact(raw), false)
	case "message":
		for _, c := range it.Content {
			d.refused = d.refused || c.Type == "refusal"
		}
		if !o.got && !d.messageText(o, it) {
			return false
		}
		return d.b.TextEnd(o.idx, encodeTextSignature(it.ID, it.Phase))
	}
	if !o.got && it.Arguments != "" && !d.b.ToolCallDelta(o.idx, it.Arguments) {
		return false
	}
	return d.b.ToolCallEnd(o.idx)
}

func (d *decoder) summaryText(o *openItem, it streamItem) bool {
	for i, s := range it.Summary {
		if i > 0 && !d.b.ThinkingDelta(o.idx, "\n\n") {
			return false
		}
		if !d.b.ThinkingDelta(o.idx, s.Text) {
			return false
		}
	}
	return true
}

func (d *decoder) messageText(o *openItem, it streamItem) bool {
	for _, c := range it.Content {
		if !d.b.TextDelta(o.idx, c.Text+c.Refusal) {
			return false
		}
	}
	return true
}

func compact(raw json.RawMessage) string {
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return string(raw)
	}
	return buf.String()
}
