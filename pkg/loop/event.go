package loop

import (
	"encoding/json"
	"slices"
	"time"

	"gopi/pkg/ai"
)

// EventType names a loop event, as pi names them.
type EventType string

// Loop events, in pi's names and order.
const (
	AgentStart    EventType = "agent_start"
	TurnStart     EventType = "turn_start"
	MessageStart  EventType = "message_start"
	MessageUpdate EventType = "message_update"
	MessageEnd    EventType = "message_end"
	ToolStart     EventType = "tool_execution_start"
	ToolUpdate    EventType = "tool_execution_update"
	ToolEnd       EventType = "tool_execution_end"
	TurnEnd       EventType = "turn_end"
	AgentEnd      EventType = "agent_end"
	// RetryStart says the model request failed and is being sent again:
	// whatever message_update delivered since message_start is void, and
	// the next attempt begins with a new message_start.
	RetryStart EventType = "auto_retry_start"
	// RetryEnd says a retried model request ended.
	RetryEnd EventType = "auto_retry_end"
	// CompactionStart and CompactionEnd bracket an automatic compaction
	// of the context before a model request.
	CompactionStart EventType = "compaction_start"
	CompactionEnd   EventType = "compaction_end"
	// AgentSettled says no automatic work is left for the prompt: no
	// retry, no queued message. The loop never emits it; whoever owns the
	// whole prompt (the events mode) does, after the last agent_end.
	AgentSettled EventType = "agent_settled"
	// QueueUpdate says the steering or follow-up queue changed; it
	// carries both whole queues.
	QueueUpdate EventType = "queue_update"
	// ContextTrimmed says the next model request leaves out the oldest
	// turns of the conversation to fit the model's window.
	ContextTrimmed EventType = "context_trimmed"
	// EntryAppended reports a session entry a layer above the loop
	// appended that is not one of the run's messages: the context_edit
	// recording a failed attempt that is retried, as pi 1.6 reports it.
	EntryAppended EventType = "entry_appended"
	// SummaryRetryScheduled, SummaryRetryAttemptStart and
	// SummaryRetryFinished report a compaction's summary request that
	// failed and is sent again, as pi 1.6 names them.
	SummaryRetryScheduled    EventType = "summarization_retry_scheduled"
	SummaryRetryAttemptStart EventType = "summarization_retry_attempt_start"
	SummaryRetryFinished     EventType = "summarization_retry_finished"
)

// Event is one step of a run. Which fields are set depends on Type:
//
//	message_start, message_end   Message
//	message_update               Stream (only the delta, never the partial message)
//	tool_execution_start         ToolCallID, ToolName, Args
//	tool_execution_update        ToolCallID, ToolName, Args, Result (partial)
//	tool_execution_end           ToolCallID, ToolName, Result, IsError, Duration (when Timed)
//	turn_end                     Message (the assistant), ToolResults
//	agent_end                    Messages (this run's new messages), WillRetry
//	agent_settled                Aborted
//	queue_update                 Steering, FollowUp
//	summarization_retry_*        Retry (scheduled), Compaction's Reason (attempt_start)
//	entry_appended               Entry (the entry as written); Message, for the
//	                             context_edit of a failed attempt, is the
//	                             failed message as written just before it
//	auto_retry_start|end         Retry
//	compaction_start|end         Compaction
//	context_trimmed              Trim
type Event struct {
	Type        EventType
	Message     *ai.Message
	Stream      *ai.Event
	ToolCallID  string
	ToolName    string
	Args        json.RawMessage
	Result      *ToolOutput
	IsError     bool
	ToolResults []ai.Message
	Messages    []ai.Message
	Retry       *ai.RetryInfo
	Compaction  *CompactionInfo
	Trim        *TrimInfo
	// Duration is how long the tool ran (tool_execution_end); Timed is
	// false when it never ran (skipped or abandoned calls).
	Duration time.Duration
	Timed    bool
	// WillRetry (agent_end) says the request is sent again in a new run.
	WillRetry bool
	// Aborted (agent_settled) says the prompt ended because it was aborted.
	Aborted bool
	// Steering and FollowUp (queue_update) are the texts of the queued
	// messages, each queue whole, in order.
	Steering []string
	FollowUp []string
	// Entry is the session entry as written (entry_appended).
	Entry json.RawMessage
}

// ToolOutput is a tool's (partial or final) output as events carry it.
type ToolOutput struct {
	Content []ai.Content    `json:"content"`
	Details json.RawMessage `json:"details,omitempty"`
}

// Clone returns a deep copy of the event.
func (e Event) Clone() Event {
	if e.Message != nil {
		m := e.Message.Clone()
		e.Message = &m
	}
	if e.Stream != nil {
		s := *e.Stream
		if s.Block != nil {
			b := s.Block.Clone()
			s.Block = &b
		}
		if s.Message != nil {
			m := s.Message.Clone()
			s.Message = &m
		}
		if s.Retry != nil {
			r := *s.Retry
			s.Retry = &r
		}
		e.Stream = &s
	}
	if e.Args != nil {
		e.Args = append(json.RawMessage(nil), e.Args...)
	}
	if e.Result != nil {
		r := ToolOutput{Details: append(json.RawMessage(nil), e.Result.Details...)}
		if e.Result.Content != nil {
			r.Content = make([]ai.Content, len(e.Result.Content))
			for i, c := range e.Result.Content {
				r.Content[i] = c.Clone()
			}
		}
		if e.Result.Details == nil {
			r.Details = nil
		}
		e.Result = &r
	}
	e.ToolResults = ai.CloneMessages(e.ToolResults)
	e.Messages = ai.CloneMessages(e.Messages)
	if e.Retry != nil {
		r := *e.Retry
		e.Retry = &r
	}
	if e.Compaction != nil {
		c := *e.Compaction
		c.Details = slices.Clone(c.Details)
		if c.Usage != nil {
			u := *c.Usage
			c.Usage = &u
		}
		e.Compaction = &c
	}
	e.Steering, e.FollowUp = slices.Clone(e.Steering), slices.Clone(e.FollowUp)
	e.Entry = slices.Clone(e.Entry)
	if e.Trim != nil {
		t := *e.Trim
		e.Trim = &t
	}
	return e
}

// MarshalJSON writes the event in the shape of pi's --mode json ("type"
// first, then the event's fields): message_update carries the message's
// cumulative usage and the delta, never the partial message, and a
// toolcall_start names the call's id and tool. Text is written as pi
// writes it (no HTML escaping).
func (e Event) MarshalJSON() ([]byte, error) { return e.AppendJSON(nil) }

type base struct {
	Type EventType `json:"type"`
}

// shape returns a struct whose field order is the JSON's.
func (e Event) shape() any {
	b := base{e.Type}
	switch e.Type {
	case MessageStart, MessageEnd:
		return struct {
			base
			Message *ai.Message `json:"message"`
		}{b, e.Message}
	case MessageUpdate:
		return messageUpdateShape(e.Stream)
	case ToolStart, ToolUpdate, ToolEnd:
		return e.toolShape()
	case TurnEnd:
		return struct {
			base
			Message     *ai.Message  `json:"message"`
			ToolResults []ai.Message `json:"toolResults"`
		}{b, e.Message, nonNil(e.ToolResults)}
	case AgentEnd:
		return struct {
			base
			Messages  []ai.Message `json:"messages"`
			WillRetry bool         `json:"willRetry"`
		}{b, nonNil(e.Messages), e.WillRetry}
	case AgentSettled:
		return struct {
			base
			Aborted bool `json:"aborted"`
		}{b, e.Aborted}
	case QueueUpdate:
		return queueShape(e.Steering, e.FollowUp)
	case RetryStart, RetryEnd:
		return retryShape(e.Type, e.Retry)
	case CompactionStart, CompactionEnd:
		return compactionShape(e.Type, e.Compaction)
	case ContextTrimmed:
		return trimShape(e.Type, e.Trim)
	case EntryAppended:
		return struct {
			base
			Entry json.RawMessage `json:"entry"`
		}{b, e.Entry}
	case SummaryRetryScheduled:
		return summaryRetryShape(e.Retry)
	case SummaryRetryAttemptStart:
		return summaryAttemptShape(e.Compaction)
	}
	return b
}

// messageUpdateShape carries the message's cumulative usage and the
// delta, never the partial message.
func messageUpdateShape(s *ai.Event) any {
	var u ai.Usage
	if s != nil && s.Usage != nil {
		u = *s.Usage
	}
	return struct {
		base
		Usage                 ai.Usage `json:"usage"`
		AssistantMessageEvent any      `json:"assistantMessageEvent"`
	}{base{MessageUpdate}, u, streamShape(s)}
}

// queueShape carries both whole queues, empty ones as [].
func queueShape(steering, followUp []string) any {
	return struct {
		base
		Steering []string `json:"steering"`
		FollowUp []string `json:"followUp"`
	}{base{QueueUpdate}, nonNilStrings(steering), nonNilStrings(followUp)}
}

// summaryRetryShape counts maxAttempts as retryShape does.
func summaryRetryShape(r *ai.RetryInfo) any {
	if r == nil {
		r = &ai.RetryInfo{}
	}
	return struct {
		base
		Attempt      int    `json:"attempt"`
		MaxAttempts  int    `json:"maxAttempts"`
		DelayMs      int64  `json:"delayMs"`
		ErrorMessage string `json:"errorMessage"`
	}{base{SummaryRetryScheduled}, r.Attempt, max(r.MaxAttempts-1, 0), r.Delay.Milliseconds(), r.ErrorMessage}
}

func summaryAttemptShape(c *CompactionInfo) any {
	reason := ""
	if c != nil {
		reason = c.Reason
	}
	return struct {
		base
		Source string `json:"source"`
		Reason string `json:"reason,omitempty"`
	}{base{SummaryRetryAttemptStart}, "compaction", reason}
}

func (e Event) toolShape() any {
	type tool struct {
		Type          EventType       `json:"type"`
		ToolCallID    string          `json:"toolCallId"`
		ToolName      string          `json:"toolName"`
		Args          json.RawMessage `json:"args,omitempty"`
		PartialResult *ToolOutput     `json:"partialResult,omitempty"`
		Result        *ToolOutput     `json:"result,omitempty"`
		IsError       *bool           `json:"isError,omitempty"`
		DurationMs    *int64          `json:"durationMs,omitempty"`
	}
	out := tool{Type: e.Type, ToolCallID: e.ToolCallID, ToolName: e.ToolName}
	switch e.Type {
	case ToolStart:
		out.Args = rawOrEmpty(e.Args)
	case ToolUpdate:
		out.Args, out.PartialResult = rawOrEmpty(e.Args), e.Result
	case ToolEnd:
		isErr := e.IsError
		out.Result, out.IsError = e.Result, &isErr
		if e.Timed {
			ms := e.Duration.Milliseconds()
			out.DurationMs = &ms
		}
	}
	return out
}

func streamShape(s *ai.Event) any {
	if s == nil {
		return nil
	}
	type stream struct {
		Type         ai.EventType `json:"type"`
		ContentIndex int          `json:"contentIndex"`
		Delta        *string      `json:"delta,omitempty"`
		Content      *string      `json:"content,omitempty"`
		ID           *string      `json:"id,omitempty"`
		ToolName     *string      `json:"toolName,omitempty"`
		ToolCall     *ai.Content  `json:"toolCall,omitempty"`
	}
	out := stream{Type: s.Type, ContentIndex: s.Index}
	switch s.Type {
	case ai.EventTextDelta, ai.EventThinkingDelta, ai.EventToolCallDelta:
		out.Delta = &s.Delta
	case ai.EventTextEnd:
		out.Content = &s.Block.Text
	case ai.EventThinkingEnd:
		out.Content = &s.Block.Thinking
	case ai.EventToolCallStart:
		var id, name string
		if s.Block != nil {
			id, name = s.Block.ID, s.Block.Name
		}
		out.ID, out.ToolName = &id, &name
	case ai.EventToolCallEnd:
		out.ToolCall = s.Block
	}
	return out
}

// retryShape counts as pi does: maxAttempts is the retries allowed (the
// first attempt not included), and auto_retry_end's attempt the retries
// made.
func retryShape(t EventType, r *ai.RetryInfo) any {
	if t == RetryStart {
		return struct {
			Type         EventType `json:"type"`
			Attempt      int       `json:"attempt"`
			MaxAttempts  int       `json:"maxAttempts"`
			DelayMs      int64     `json:"delayMs"`
			ErrorMessage string    `json:"errorMessage"`
		}{t, r.Attempt, max(r.MaxAttempts-1, 0), r.Delay.Milliseconds(), r.ErrorMessage}
	}
	var final *string
	if !r.Success {
		final = &r.ErrorMessage
	}
	return struct {
		Type       EventType `json:"type"`
		Success    bool      `json:"success"`
		Attempt    int       `json:"attempt"`
		FinalError *string   `json:"finalError,omitempty"`
	}{t, r.Success, max(r.Attempt-1, 0), final}
}

func compactionShape(t EventType, c *CompactionInfo) any {
	if t == CompactionStart {
		return struct {
			Type   EventType `json:"type"`
			Reason string    `json:"reason"`
		}{t, c.Reason}
	}
	type result struct {
		Summary              string          `json:"summary"`
		FirstKeptEntryID     string          `json:"firstKeptEntryId"`
		TokensBefore         int             `json:"tokensBefore"`
		EstimatedTokensAfter int             `json:"estimatedTokensAfter"`
		Usage                *ai.Usage       `json:"usage,omitempty"`
		Details              json.RawMessage `json:"details,omitempty"`
	}
	out := struct {
		Type         EventType `json:"type"`
		Reason       string    `json:"reason,omitempty"`
		Result       *result   `json:"result,omitempty"`
		Aborted      bool      `json:"aborted"`
		WillRetry    bool      `json:"willRetry"`
		ErrorMessage string    `json:"errorMessage,omitempty"`
	}{Type: t, Reason: c.Reason, Aborted: c.Aborted, WillRetry: c.WillRetry, ErrorMessage: c.ErrorMessage}
	if c.ErrorMessage == "" && !c.Aborted {
		out.Result = &result{c.Summary, c.FirstKeptEntryID, c.TokensBefore, c.EstimatedTokensAfter, c.Usage, c.Details}
	}
	return out
}

func trimShape(t EventType, c *TrimInfo) any {
	return struct {
		Type                EventType `json:"type"`
		Reason              string    `json:"reason"`
		ContextWindow       int       `json:"contextWindow"`
		Turns               int       `json:"turns"`
		Messages            int       `json:"messages"`
		FirstDroppedEntryID string    `json:"firstDroppedEntryId"`
		FirstKeptEntryID    string    `json:"firstKeptEntryId"`
		Tokens              int       `json:"tokens"`
		ErrorMessage        string    `json:"errorMessage,omitempty"`
	}{t, c.Reason, c.ContextWindow, c.Turns, c.Messages, c.FirstDroppedEntryID, c.FirstKeptEntryID, c.Tokens, c.ErrorMessage}
}

func rawOrEmpty(r json.RawMessage) json.RawMessage {
	if len(r) == 0 {
		return json.RawMessage("{}")
	}
	return r
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func nonNil(ms []ai.Message) []ai.Message {
	if ms == nil {
		return []ai.Message{}
	}
	return ms
}
