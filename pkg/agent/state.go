package agent

import (
	"slices"
	"strings"

	"gopi/pkg/ai"
	"gopi/pkg/loop"
)

// RunEnd is the Agent's own last event of a run, emitted after the run
// released the Agent: a subscriber may start the next run from it.
const RunEnd loop.EventType = "run_end"

// Event is a loop event tagged with the run it belongs to, or RunEnd.
type Event struct {
	RunID int
	loop.Event
	// Result is set on RunEnd.
	Result *loop.Result
	// Unsent, on RunEnd, is the input Steer and FollowUp accepted that the
	// run never delivered (it ended first: aborted, failed, or at its step
	// limit), steering first, then follow-ups, each in the order queued.
	// It never reaches a later run by itself; the caller may send it again.
	Unsent []ai.Message
}

// Clone returns a deep copy.
func (e Event) Clone() Event {
	e.Event = e.Event.Clone()
	if e.Result != nil {
		r := e.Result.Clone()
		e.Result = &r
	}
	e.Unsent = ai.CloneMessages(e.Unsent)
	return e
}

// Status is idle or running.
type Status string

// Agent statuses.
const (
	Idle    Status = "idle"
	Running Status = "running"
)

// State is a snapshot of the Agent for displays. It is derived from
// events by Reduce; the Agent hands out deep copies.
type State struct {
	Status Status
	// RunID is the current run, or the last one when idle (0: none yet).
	RunID    int
	Messages []ai.Message
	// LastReason is why the last run ended.
	LastReason loop.Reason
	// StreamingText is the text of the assistant message being streamed.
	StreamingText string
	// PendingToolCalls are the ids of tool calls running now.
	PendingToolCalls []string
	// ErrorMessage is the error of the last failed turn, cleared by the next run.
	ErrorMessage string
	// Diagnostics records subscriber panics and dropped queued input.
	Diagnostics []string
}

// Clone returns a deep copy.
func (s State) Clone() State {
	s.Messages = ai.CloneMessages(s.Messages)
	s.PendingToolCalls = slices.Clone(s.PendingToolCalls)
	s.Diagnostics = slices.Clone(s.Diagnostics)
	return s
}

// Reduce derives the next state from an event. It is pure: it never
// changes what s or e show, nor a state reduced earlier from the same s
// (reducing s twice gives two independent results), and keeps no
// reference into e (what it stores is copied); at agent_start it
// deep-copies s, so the run's states share nothing with the state the
// caller held before. Loop events and RunEnd of a run other than the
// current one are ignored, so late events of an older run never
// overwrite a newer run's state.
//
// Being pure, Reduce copies StreamingText at each text delta, so folding
// a whole answer through it costs the square of the answer's length; the
// Agent's own state grows the text in place instead (see reduce).
func Reduce(s State, e Event) State {
	if e.Type == loop.AgentStart {
		s = s.Clone()
	}
	// An append must not write into spare capacity that an earlier
	// result reduced from the same s may already use.
	s.Messages = slices.Clip(s.Messages)
	return reduce(s, e, nil)
}

// reduce is Reduce for the Agent's own state, which nobody outside the
// Agent can reach and which is reduced exactly once per event: its
// messages are never changed in place and its slice's spare capacity
// belongs to it alone, so message_end appends in place (amortised) and
// agent_start keeps the messages instead of deep-copying a long transcript.
// text, when not nil, is the Agent's builder of StreamingText (see
// streamText); nil copies the text at every delta, as Reduce must.
func reduce(s State, e Event, text *strings.Builder) State {
	s = step(s, e, text)
	if text != nil && s.StreamingText == "" {
		text.Reset() // the strings handed out keep their bytes
	}
	return s
}

// step is reduce's transition; reduce keeps the builder in step with it.
func step(s State, e Event, text *strings.Builder) State {
	if e.Type == loop.AgentStart {
		s.Diagnostics = slices.Clip(s.Diagnostics)
		s.Status, s.RunID = Running, e.RunID
		s.StreamingText, s.PendingToolCalls, s.ErrorMessage = "", nil, ""
		return s
	}
	if e.RunID != s.RunID {
		return s
	}
	switch e.Type {
	case loop.MessageStart, loop.RetryStart:
		s.StreamingText = ""
	case loop.MessageUpdate:
		if e.Stream != nil && e.Stream.Type == ai.EventTextDelta {
			s.StreamingText = streamText(s.StreamingText, e.Stream.Delta, text)
		}
		if e.Stream != nil && e.Stream.Type == ai.EventStart {
			s.StreamingText = ""
		}
	case loop.MessageEnd:
		// Amortised append into s's spare capacity: Reduce clips first.
		s.Messages = append(s.Messages, e.Message.Clone())
		s.StreamingText = ""
	case loop.ToolStart:
		s.PendingToolCalls = append(slices.Clip(s.PendingToolCalls), e.ToolCallID)
	case loop.ToolEnd:
		s.PendingToolCalls = slices.DeleteFunc(slices.Clone(s.PendingToolCalls), func(id string) bool { return id == e.ToolCallID })
	case loop.TurnEnd:
		if e.Message != nil && e.Message.StopReason == ai.StopError {
			s.ErrorMessage = e.Message.ErrorMessage
		}
	case RunEnd:
		s.Status = Idle
		s.StreamingText, s.PendingToolCalls = "", nil
		if e.Result != nil {
			// message_end already appended every message of the run; copy
			// the result's transcript only when the state lacks some.
			if len(s.Messages) != len(e.Result.Messages) {
				s.Messages = ai.CloneMessages(e.Result.Messages)
			}
			s.LastReason = e.Result.Reason
		}
	}
	return s
}

// streamText returns cur with delta appended. Concatenating strings
// copies the whole text at every delta: a 100,000-token answer cost
// seconds. The Agent's builder appends in place (amortised O(delta)) and
// its String shares the bytes without copying: a builder never rewrites
// bytes it has written, so every StreamingText handed out before stays
// as it was. The builder holds cur: only reduce sets the Agent's
// StreamingText, and it empties the builder with the text (a length that
// differs all the same starts the builder again from cur).
func streamText(cur, delta string, text *strings.Builder) string {
	if text == nil {
		return cur + delta
	}
	if text.Len() != len(cur) {
		text.Reset()
		text.WriteString(cur)
	}
	text.WriteString(delta)
	return text.String()
}
