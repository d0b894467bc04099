package telemetry

import (
	"sync"

	"gopi/pkg/ai"
	"gopi/pkg/loop"
)

// Prompts records a Runtime that runs many prompts (chat, rpc): one
// invoke_agent span per prompt, opened at its first event and ended,
// then sent, at its last agent_end (a run sent again after an error,
// agent_end's WillRetry, stays in the same span). The session id ties
// the prompts' traces together. t nil gives a function that does nothing.
func (t *Telemetry) Prompts(info Info) func(runID int, e loop.Event) {
	if t == nil {
		return func(int, loop.Event) {}
	}
	p := &prompts{t: t, info: info}
	return p.event
}

type prompts struct {
	t    *Telemetry
	info Info

	mu    sync.Mutex
	cur   Recorder
	steps int
	usage ai.Usage
	last  ai.Message // the prompt's last answer
}

func (p *prompts) event(runID int, e loop.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cur == nil {
		p.cur, p.steps, p.usage, p.last = p.t.Start(p.info), 0, ai.Usage{}, ai.Message{}
	}
	p.cur.Event(runID, e)
	switch e.Type {
	case loop.MessageEnd:
		if e.Message != nil && e.Message.Role == ai.RoleAssistant {
			p.steps++
			p.usage = p.usage.Add(e.Message.Usage)
			p.last = *e.Message
		}
	case loop.AgentEnd:
		if e.WillRetry {
			return
		}
		end := End{Reason: reasonOf(p.last.StopReason), Steps: p.steps, Usage: p.usage}
		switch p.last.StopReason {
		case ai.StopError:
			end.Class = "error"
		case ai.StopAborted:
			end.Class = string(ai.ClassAborted)
		}
		if p.info.Leaf != nil {
			end.LeafID = p.info.Leaf()
		}
		end.SessionFile = p.info.SessionFile
		p.cur.End(end)
		p.cur = nil
	}
}

// reasonOf is loop.Reason of a prompt's last answer.
func reasonOf(s ai.StopReason) string {
	switch s {
	case ai.StopError:
		return string(loop.ReasonError)
	case ai.StopAborted:
		return string(loop.ReasonAborted)
	case ai.StopLength:
		return string(loop.ReasonLength)
	}
	return string(loop.ReasonStop)
}
