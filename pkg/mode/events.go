package mode

import (
	"encoding/json"
	"time"

	"gopi/pkg/ai"
	"gopi/pkg/loop"
)

// eventStream writes the events of one prompt as pi 1.6's json mode does.
// gopi retries a failed model request inside one run; pi ends the run and
// starts another. So a retry is written in pi's shape: the failed attempt
// ends as an error message (message_end, turn_end), the run ends with
// agent_end {willRetry: true}, auto_retry_start follows, and the next
// attempt opens with agent_start and turn_start; auto_retry_end comes
// after the message_end of the attempt that succeeded, or after the last
// agent_end when none did. agent_settled follows the last agent_end. The
// Runtime records a failed attempt before its retry is reported: the
// failed message is the one written, and the context_edit leaving it out
// is reported (entry_appended) after auto_retry_start, where pi has it.
type eventStream struct {
	w     *lineWriter
	enc   loop.Encoder
	now   func() time.Time
	model ai.Info

	started   bool         // an agent_start was written
	open      *ai.Message  // the streamed answer's message_start, until its end
	run       []ai.Message // messages ended since the last agent_start
	retried   bool         // a retry split the prompt into several runs
	retryEnd  *loop.Event  // auto_retry_end, held until its place
	endFailed bool         // the held auto_retry_end says the retries failed
	attempt   *loop.Event  // the entry_appended recording a failed attempt, held until its retry
	// queueAfter: after this many more user messages end, an empty
	// queue_update is written (rpc: a queue taken by a prompt, as pi).
	queueAfter int
	// held is an answer's message_start, written with the first block
	// once it starts (pi's message_start carries that block, empty).
	held *loop.Event
}

func (s *eventStream) event(e loop.Event) {
	if s.held != nil {
		s.release(e)
	}
	switch e.Type {
	case loop.AgentStart:
		s.started, s.run = true, nil
	case loop.MessageStart:
		if e.Message.Role == ai.RoleAssistant && e.Message.StopReason == "" {
			m := *e.Message
			s.open = &m
			// As pi: "pending" until it ends, written with its first block.
			held := e
			pm := m
			pm.StopReason = "pending"
			held.Message = &pm
			s.held = &held
			return
		}
	case loop.MessageEnd:
		s.open = nil
		s.run = append(s.run, *e.Message)
		s.write(e)
		if s.queueAfter > 0 && e.Message.Role == ai.RoleUser {
			if s.queueAfter--; s.queueAfter == 0 {
				s.write(loop.Event{Type: loop.QueueUpdate, Steering: []string{}, FollowUp: []string{}})
			}
		}
		if s.retryEnd != nil && !s.endFailed {
			s.write(*s.retryEnd)
			s.retryEnd = nil
		}
		return
	case loop.EntryAppended:
		if e.Message != nil {
			held := e
			s.attempt = &held
			return
		}
	case loop.RetryStart:
		s.failedAttempt(e)
		return
	case loop.RetryEnd:
		held := e
		s.retryEnd, s.endFailed = &held, !e.Retry.Success
		return
	case loop.ToolStart:
		s.write(e)
		if e.ToolName == "bash" {
			// pi's bash reports an empty partial result as it starts.
			s.write(loop.Event{Type: loop.ToolUpdate, ToolCallID: e.ToolCallID, ToolName: e.ToolName, Args: e.Args,
				Result: &loop.ToolOutput{Content: []ai.Content{}}})
		}
		return
	case loop.AgentEnd:
		if s.retried {
			e.Messages = s.run
		}
		s.write(e)
		if s.retryEnd != nil {
			s.write(*s.retryEnd)
			s.retryEnd = nil
		}
		return
	}
	s.write(e)
}

// release writes the held message_start before e: with e's block, empty,
// when e starts the answer's first block.
func (s *eventStream) release(e loop.Event) {
	held := s.held
	s.held = nil
	if e.Type == loop.MessageUpdate && e.Stream != nil {
		m := *held.Message
		switch e.Stream.Type {
		case ai.EventTextStart:
			m.Content = []ai.Content{ai.TextContent("")}
		case ai.EventThinkingStart:
			m.Content = []ai.Content{{Type: ai.TypeThinking}}
		case ai.EventToolCallStart:
			if e.Stream.Block != nil {
				b := *e.Stream.Block
				b.Arguments = json.RawMessage("{}")
				m.Content = []ai.Content{b}
			}
		}
		held.Message = &m
	}
	s.write(*held)
}

// failedAttempt ends the run of an attempt that is retried, as pi does.
func (s *eventStream) failedAttempt(retry loop.Event) {
	failed := ai.Message{Role: ai.RoleAssistant, Content: []ai.Content{}, API: s.model.API, Provider: s.model.Provider,
		Model: s.model.ID, StopReason: ai.StopError, ErrorMessage: retry.Retry.ErrorMessage}
	record := s.attempt
	s.attempt = nil
	switch {
	case record != nil:
		failed = *record.Message
	case s.open != nil:
		failed.API, failed.Provider, failed.Model, failed.Timestamp = s.open.API, s.open.Provider, s.open.Model, s.open.Timestamp
	default:
		failed.Timestamp = s.now().UnixMilli()
	}
	if s.open == nil {
		s.write(loop.Event{Type: loop.MessageStart, Message: &failed})
	}
	s.write(loop.Event{Type: loop.MessageEnd, Message: &failed})
	s.write(loop.Event{Type: loop.TurnEnd, Message: &failed})
	s.write(loop.Event{Type: loop.AgentEnd, Messages: append(s.run, failed), WillRetry: true})
	s.write(retry)
	if record != nil {
		s.write(*record)
	}
	s.write(loop.Event{Type: loop.AgentStart})
	s.write(loop.Event{Type: loop.TurnStart})
	s.open, s.run, s.retried = nil, nil, true
}

// settled writes agent_settled once a prompt has nothing left to do, and
// readies the stream for the next prompt. A nil stream (not events mode)
// does nothing.
func (s *eventStream) settled(reason loop.Reason) {
	if s == nil {
		return
	}
	if s.started {
		s.write(loop.Event{Type: loop.AgentSettled, Aborted: reason == loop.ReasonAborted})
	}
	if s.held != nil {
		s.write(*s.held)
	}
	s.started, s.open, s.run, s.retried, s.retryEnd, s.attempt, s.held = false, nil, nil, false, nil, nil, nil
}

func (s *eventStream) write(e loop.Event) { s.w.event(&s.enc, e) }
