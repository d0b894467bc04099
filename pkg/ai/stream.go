package ai

import (
	"context"
	"encoding/json"
	"errors"
	"gopi/internal/pijson"
	"iter"
	"strings"
)

// Builder assembles an assistant message while emitting its stream events,
// so every Model produces the same event grammar. Each method returns false
// once the consumer has stopped iterating; the model should then return.
type Builder struct {
	msg     Message
	yield   func(Event) bool
	open    map[int]*strings.Builder
	stopped bool
	ended   bool
	usage   *Usage // the usage content events carry: replaced, never changed
}

// NewBuilder starts a message for the given model; now is unix milliseconds.
func NewBuilder(info Info, now int64, yield func(Event) bool) *Builder {
	return &Builder{
		msg:   Message{Role: RoleAssistant, API: info.API, Provider: info.Provider, Model: info.ID, Timestamp: now},
		yield: yield,
		open:  map[int]*strings.Builder{},
	}
}

func (b *Builder) emit(e Event) bool {
	if b.stopped {
		return false
	}
	if !b.yield(e) {
		b.stopped = true
	}
	return !b.stopped
}

// Start emits the start event.
func (b *Builder) Start() bool {
	head := b.msg.Clone()
	return b.emit(Event{Type: EventStart, Message: &head})
}

func setBlockText(c *Content, s string) {
	switch c.Type {
	case TypeText:
		c.Text = s
	case TypeThinking:
		c.Thinking = s
	case TypeToolCall:
		c.Arguments = json.RawMessage(s)
	}
}

func (b *Builder) begin(c Content, t EventType) (int, bool) {
	idx := len(b.msg.Content)
	b.msg.Content = append(b.msg.Content, c)
	b.open[idx] = &strings.Builder{}
	hdr := c
	return idx, b.emit(Event{Type: t, Index: idx, Block: &hdr, Usage: b.usage})
}

func (b *Builder) delta(idx int, s string, t EventType) bool {
	sb, ok := b.open[idx]
	if !ok {
		return !b.stopped
	}
	sb.WriteString(s)
	return b.emit(Event{Type: t, Index: idx, Delta: s, Usage: b.usage})
}

func (b *Builder) end(idx int, t EventType, finish func(c *Content, acc string)) bool {
	sb, ok := b.open[idx]
	if !ok {
		return !b.stopped
	}
	delete(b.open, idx)
	c := &b.msg.Content[idx]
	finish(c, sb.String())
	done := c.Clone()
	return b.emit(Event{Type: t, Index: idx, Block: &done, Usage: b.usage})
}

// TextStart opens a text block and returns its index.
func (b *Builder) TextStart() (int, bool) { return b.begin(TextContent(""), EventTextStart) }

// TextDelta appends to an open text block.
func (b *Builder) TextDelta(idx int, s string) bool { return b.delta(idx, s, EventTextDelta) }

// TextEnd closes a text block; signature may be empty.
func (b *Builder) TextEnd(idx int, signature string) bool {
	return b.end(idx, EventTextEnd, func(c *Content, acc string) {
		c.Text = acc
		c.TextSignature = signature
	})
}

// ThinkingStart opens a thinking block.
func (b *Builder) ThinkingStart() (int, bool) {
	return b.begin(Content{Type: TypeThinking}, EventThinkingStart)
}

// ThinkingDelta appends to an open thinking block.
func (b *Builder) ThinkingDelta(idx int, s string) bool {
	return b.delta(idx, s, EventThinkingDelta)
}

// ThinkingEnd closes a thinking block with its signature (may be empty).
// A redacted block carries the provider's opaque data as its signature.
func (b *Builder) ThinkingEnd(idx int, signature string, redacted bool) bool {
	return b.end(idx, EventThinkingEnd, func(c *Content, acc string) {
		c.Thinking = acc
		c.ThinkingSignature = signature
		c.Redacted = redacted
	})
}

// ToolCallStart opens a tool call block.
func (b *Builder) ToolCallStart(id, name string) (int, bool) {
	return b.begin(Content{Type: TypeToolCall, ID: id, Name: name}, EventToolCallStart)
}

// ToolCallDelta appends a fragment of the call's JSON arguments.
func (b *Builder) ToolCallDelta(idx int, fragment string) bool {
	return b.delta(idx, fragment, EventToolCallDelta)
}

// ToolCallEnd closes a tool call. Its arguments are the concatenated
// fragments; empty becomes {}. Arguments that are not a JSON object are
// kept as a JSON string under "_raw" so the tool layer can report them to
// the model instead of the stream failing.
func (b *Builder) ToolCallEnd(idx int) bool {
	return b.end(idx, EventToolCallEnd, func(c *Content, acc string) {
		c.Arguments = ToolArguments(acc)
	})
}

// ToolArguments turns streamed argument text into a JSON object.
func ToolArguments(s string) json.RawMessage {
	t := strings.TrimSpace(s)
	if t == "" {
		return json.RawMessage("{}")
	}
	if t[0] == '{' && json.Valid([]byte(t)) { // valid JSON opening with { is an object
		return json.RawMessage(t)
	}
	raw := pijson.AppendString([]byte(`{"`+InvalidArgumentsKey+`":`), s)
	return append(raw, '}')
}

// InvalidArgumentsKey holds tool arguments that were not a JSON object.
const InvalidArgumentsKey = "_raw"

// SetUsage records usage (already priced by the caller if it wants cost).
func (b *Builder) SetUsage(u Usage) {
	b.msg.Usage = u
	b.usage = &u
}

// Usage is the usage recorded so far (SetUsage).
func (b *Builder) Usage() Usage { return b.msg.Usage }

// closeOpen finishes blocks left open (a stream cut mid-block).
func (b *Builder) closeOpen() {
	for idx, sb := range b.open {
		setBlockText(&b.msg.Content[idx], sb.String())
		if b.msg.Content[idx].Type == TypeToolCall {
			b.msg.Content[idx].Arguments = ToolArguments(sb.String())
		}
	}
	clear(b.open)
}

// Done ends the stream with a complete message.
func (b *Builder) Done(reason StopReason) Message {
	b.closeOpen()
	b.msg.StopReason = reason
	return b.finish(Event{Type: EventDone})
}

// Fail ends the stream with an error message. A cancelled or expired ctx
// gives StopAborted; anything else StopError. Partial content is kept in
// the message for the record; callers decide whether to use it.
func (b *Builder) Fail(ctx context.Context, err error) Message {
	b.closeOpen()
	b.msg.StopReason = StopError
	if ctx != nil && ctx.Err() != nil {
		b.msg.StopReason = StopAborted
	}
	if err != nil {
		b.msg.ErrorMessage = err.Error()
	}
	return b.finish(Event{Type: EventError, Err: err})
}

func (b *Builder) finish(e Event) Message {
	if b.ended {
		return b.msg.Clone()
	}
	b.ended = true
	final := b.msg.Clone()
	e.Message = &final
	b.emit(e)
	return b.msg.Clone()
}

// Collect drains a stream and returns its final message. A stream that ends
// without a terminal event (a broken Model) yields an error message.
func Collect(seq iter.Seq[Event]) (Message, error) {
	var final *Message
	var err error
	for e := range seq {
		if e.Terminal() {
			final, err = e.Message, e.Err
		}
	}
	if final == nil {
		return Message{Role: RoleAssistant, StopReason: StopError, ErrorMessage: "model stream ended without a result"}, errors.New("model stream ended without a result")
	}
	return *final, err
}
