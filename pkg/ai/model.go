package ai

import (
	"context"
	"encoding/json"
	"iter"
	"time"
)

// Model streams one assistant response.
//
// The sequence Stream returns always ends with exactly one EventDone or
// EventError whose Message is the complete assistant message; it never
// panics and never ends without one. A failure (network, provider, a
// cancelled ctx) ends it with EventError and a message whose StopReason is
// StopError or StopAborted. A consumer may stop iterating early; the model
// then releases what it holds (connections, goroutines) before returning.
//
// Ownership at the boundary: the Request, its messages (with their
// content blocks) and its tools stay the caller's. A model reads them and
// must not modify them, not even by appending to their slices (their
// spare capacity may hold the caller's transcript); to send something
// else it builds a Request of its own. What an event points to (Block,
// Message) is the consumer's to read; the consumer deep-copies the final
// message before keeping it, so the model may reuse what it returned.
type Model interface {
	Stream(ctx context.Context, req *Request) iter.Seq[Event]
}

// ThinkingLevel is how much the model may reason before answering.
type ThinkingLevel string

// Thinking levels, as pi names them.
const (
	ThinkingOff     ThinkingLevel = "off"
	ThinkingMinimal ThinkingLevel = "minimal"
	ThinkingLow     ThinkingLevel = "low"
	ThinkingMedium  ThinkingLevel = "medium"
	ThinkingHigh    ThinkingLevel = "high"
	ThinkingXHigh   ThinkingLevel = "xhigh"
)

// ThinkingLevels lists the valid levels, least first.
var ThinkingLevels = []ThinkingLevel{ThinkingOff, ThinkingMinimal, ThinkingLow, ThinkingMedium, ThinkingHigh, ThinkingXHigh}

// ToolSpec describes a tool to the model.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"` // a JSON schema of type object
}

// Request is one model request. Models must not modify it, its messages
// or its tools (see Model).
type Request struct {
	SystemPrompt string
	Messages     []Message
	Tools        []ToolSpec
	MaxTokens    int // 0: the model's own limit
	Thinking     ThinkingLevel
	Temperature  *float64
	// OutputSchema, when set, is the JSON Schema the final answer must
	// satisfy; adapters whose API can constrain the answer to it do so,
	// the others rely on the instructions in the system prompt.
	OutputSchema json.RawMessage
}

// EventType names a stream event.
type EventType string

// Stream event types, in pi's names.
const (
	EventStart         EventType = "start"
	EventTextStart     EventType = "text_start"
	EventTextDelta     EventType = "text_delta"
	EventTextEnd       EventType = "text_end"
	EventThinkingStart EventType = "thinking_start"
	EventThinkingDelta EventType = "thinking_delta"
	EventThinkingEnd   EventType = "thinking_end"
	EventToolCallStart EventType = "toolcall_start"
	EventToolCallDelta EventType = "toolcall_delta"
	EventToolCallEnd   EventType = "toolcall_end"
	EventDone          EventType = "done"
	EventError         EventType = "error"

	// EventRetryStart says the attempt failed and the request will be sent
	// again after Retry.Delay; the consumer drops what it received of the
	// failed attempt, and the next attempt begins with a new start event.
	EventRetryStart EventType = "retry_start"
	// EventRetryEnd says a retried request ended (Retry.Success tells how).
	EventRetryEnd EventType = "retry_end"
)

// RetryInfo describes an automatic retry of a model request.
type RetryInfo struct {
	Attempt      int           // the attempt that failed (retry_start) or the last one (retry_end), from 1
	MaxAttempts  int           // including the first
	Delay        time.Duration // wait before the next attempt (retry_start)
	ErrorMessage string        // why the attempt failed
	Success      bool          // retry_end: the request finally succeeded
	// Usage is what the failed attempt spent as its stream reported it
	// (retry_start): a retried attempt is paid for too.
	Usage Usage
}

// Event is one step of a streamed response.
type Event struct {
	Type EventType
	// Index is the content block the event belongs to.
	Index int
	// Delta is the new text, thinking or tool-argument fragment (*_delta).
	Delta string
	// Block is the finished block (*_end), or the block header (*_start of
	// a toolCall carries its id and name).
	Block *Content
	// Message is the final assistant message (done, error). On start it
	// carries api, provider and model with no content.
	Message *Message
	// Err is the classified cause of an error event (often *ProviderError).
	Err error
	// Retry describes retry_start and retry_end events.
	Retry *RetryInfo
	// Usage is the message's cumulative usage as the provider last
	// reported it (content events); nil until it reports any. It is
	// shared by the events until the usage changes: never modify it.
	Usage *Usage
}

// Terminal reports whether the event ends the stream.
func (e Event) Terminal() bool { return e.Type == EventDone || e.Type == EventError }
