package anthropic

import (
	"fmt"
	"slices"

	"gopi/pkg/ai"
)

// messageEvents are the event types of the Messages stream grammar:
// message_start, then content blocks (start, deltas, stop, one index each),
// message_delta, message_stop. ping, error and types added later stand
// outside it.
var messageEvents = map[string]bool{
	"message_start": true, "content_block_start": true, "content_block_delta": true,
	"content_block_stop": true, "message_delta": true, "message_stop": true,
}

// deltaBlock is the block kind each known delta type belongs to. A delta
// type not listed is a later addition and is ignored.
var deltaBlock = map[string]string{
	"text_delta": "text", "citations_delta": "text",
	"thinking_delta": "thinking", "signature_delta": "thinking",
	"input_json_delta": "tool_use",
}

// grammarError fails the attempt when the stream breaks the grammar: two
// messages merged into one, or a block fed out of order, is a server or
// proxy fault that another attempt may not repeat, and building on it
// could run a half-streamed tool call.
func grammarError(format string, args ...any) error {
	return &ai.ProviderError{
		Class: ai.ClassServer, Retryable: true,
		Message: "the response broke the Messages stream grammar: " + fmt.Sprintf(format, args...),
	}
}

// order checks that an event of the grammar comes where it may.
func (d *decoder) order(typ string) error {
	switch {
	case d.stopped:
		return grammarError("%s after message_stop", typ)
	case typ == "message_start" && d.started:
		return grammarError("a second message_start inside one message")
	case typ != "message_start" && !d.started:
		return grammarError("%s before message_start", typ)
	}
	return nil
}

// deltaFits checks a content_block_delta against its block.
func (d *decoder) deltaFits(index int, ob *openBlock, dl *deltaBody) error {
	switch {
	case ob == nil && d.used[index]:
		return grammarError("content_block_delta for index %d after its content_block_stop", index)
	case ob == nil:
		return grammarError("content_block_delta for index %d, which was never started", index)
	case dl == nil:
		return grammarError("content_block_delta for index %d has no delta", index)
	case ob.foreign:
		return nil
	}
	if want, known := deltaBlock[dl.Type]; known && want != ob.kind {
		return grammarError("%s for the %s block at index %d", dl.Type, ob.kind, index)
	}
	return nil
}

// messageStop ends the message; a block still open at this point would be
// a half-streamed one.
func (d *decoder) messageStop() error {
	if len(d.blocks) > 0 {
		open := make([]int, 0, len(d.blocks))
		for i := range d.blocks {
			open = append(open, i)
		}
		slices.Sort(open)
		return grammarError("message_stop with the block at index %d still open", open[0])
	}
	d.stopped = true
	if d.onStop != nil {
		d.onStop()
	}
	return nil
}
