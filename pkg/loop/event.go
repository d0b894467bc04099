package loop

import (
	"encoding/json"

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
	// whatever message_update delivered since message_start is void.
	RetryStart EventType = "auto_retry_start"
	// RetryEnd says a retried model request ended.
	RetryEnd EventType = "auto_retry_end"
	// CompactionStart and CompactionEnd bracket an automatic compaction
	// of the context before a model request.
	CompactionStart EventType = "auto_compaction_start"
	CompactionEnd   EventType = "auto_compaction_end"
)

// Event is one step of a run. Which fields are set depends on Type:
//
//	message_start, message_end   Message
//	message_update               Stream (only the delta, never the partial message)
//	tool_execution_start         ToolCallID, ToolName, Args
//	tool_execution_update        ToolCallID, ToolName, Args, Result (partial)
//	tool_execution_end           ToolCallID, ToolName, Result, IsError
//	turn_end                     Message (the assistant), ToolResults
//	agent_end                    Messages (this run's new messages)
//	auto_retry_start|end         Retry
//	auto_compaction_start|end    Compaction
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
	Compaction  *ai.CompactionInfo
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
		if s.Compaction != nil {
			c := *s.Compaction
			s.Compaction = &c
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
		e.Compaction = &c
	}
	return e
}

// MarshalJSON writes the event in the shape of pi's --mode json, except
// that message_update carries only the delta, never the partial message.
func (e Event) MarshalJSON() ([]byte, error) {
	out := map[string]any{"type": e.Type}
	switch e.Type {
	case MessageStart, MessageEnd:
		out["message"] = e.Message
	case MessageUpdate:
		out["assistantMessageEvent"] = streamJSON(e.Stream)
	case ToolStart:
		out["toolCallId"], out["toolName"], out["args"] = e.ToolCallID, e.ToolName, rawOrEmpty(e.Args)
	case ToolUpdate:
		out["toolCallId"], out["toolName"], out["args"] = e.ToolCallID, e.ToolName, rawOrEmpty(e.Args)
		out["partialResult"] = e.Result
	case ToolEnd:
		out["toolCallId"], out["toolName"] = e.ToolCallID, e.ToolName
		out["result"], out["isError"] = e.Result, e.IsError
	case TurnEnd:
		out["message"] = e.Message
		out["toolResults"] = nonNil(e.ToolResults)
	case AgentEnd:
		out["messages"] = nonNil(e.Messages)
	case RetryStart:
		out["attempt"], out["maxAttempts"] = e.Retry.Attempt, e.Retry.MaxAttempts
		out["delayMs"], out["errorMessage"] = e.Retry.Delay.Milliseconds(), e.Retry.ErrorMessage
	case RetryEnd:
		out["success"], out["attempt"] = e.Retry.Success, e.Retry.Attempt
		if !e.Retry.Success {
			out["finalError"] = e.Retry.ErrorMessage
		}
	case CompactionStart:
		out["reason"] = e.Compaction.Reason
	case CompactionEnd:
		compactionEndJSON(out, e.Compaction)
	}
	return json.Marshal(out)
}

func streamJSON(s *ai.Event) map[string]any {
	if s == nil {
		return nil
	}
	out := map[string]any{"type": s.Type, "contentIndex": s.Index}
	switch s.Type {
	case ai.EventTextDelta, ai.EventThinkingDelta, ai.EventToolCallDelta:
		out["delta"] = s.Delta
	case ai.EventTextEnd:
		out["content"] = s.Block.Text
	case ai.EventThinkingEnd:
		out["content"] = s.Block.Thinking
	case ai.EventToolCallStart, ai.EventToolCallEnd:
		out["toolCall"] = s.Block
	}
	return out
}

func rawOrEmpty(r json.RawMessage) json.RawMessage {
	if len(r) == 0 {
		return json.RawMessage("{}")
	}
	return r
}

func nonNil(ms []ai.Message) []ai.Message {
	if ms == nil {
		return []ai.Message{}
	}
	return ms
}

func compactionEndJSON(out map[string]any, c *ai.CompactionInfo) {
	out["aborted"], out["willRetry"] = false, c.WillRetry
	if c.ErrorMessage != "" {
		out["errorMessage"] = c.ErrorMessage
		return
	}
	out["result"] = map[string]any{"summary": c.Summary, "firstKeptEntryId": c.FirstKeptEntryID, "tokensBefore": c.TokensBefore}
}
