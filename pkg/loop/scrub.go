package loop

import (
	"context"
	"encoding/json"
	"fmt"

	"gopi/pkg/ai"
	"gopi/pkg/tools"
)

// secretsHolder is an executor that knows the secrets its tools were
// given: *tools.Registry (its Env.Secrets), and wrappers of one that pass
// the method on (the extension host's). A wrapper that does not hides
// them, and then nothing is scrubbed here.
type secretsHolder interface {
	Secrets() *tools.Secrets
}

// scrubbing wraps x so that its secrets are taken out of every result and
// every partial result, text and details, before either becomes an event
// or enters the transcript: a tool the model pointed at gopi's own
// environment or command line shows no key. x without secrets is
// returned as it is.
func scrubbing(x Executor) Executor {
	h, ok := x.(secretsHolder)
	if !ok {
		return x
	}
	return Scrubbing(x, h.Secrets())
}

// Scrubbing wraps x so that s is taken out of every result and partial
// result it gives. The composition root calls it with the secrets it
// holds, so no wrapper between it and the tools can hide them; a run
// scrubs again with whatever secrets its executor declares. x is
// returned as it is when s is empty or x already scrubs s.
func Scrubbing(x Executor, s *tools.Secrets) Executor {
	if x == nil || s.Len() == 0 {
		return x
	}
	if sx, ok := x.(*scrubExecutor); ok && sx.secrets == s {
		return x
	}
	return &scrubExecutor{next: x, secrets: s}
}

type scrubExecutor struct {
	next    Executor
	secrets *tools.Secrets
}

func (x *scrubExecutor) Specs() []ai.ToolSpec { return x.next.Specs() }

func (x *scrubExecutor) Secrets() *tools.Secrets { return x.secrets }

// Execute scrubs what next returns; a panic becomes the error result the
// loop would make of it, scrubbed too.
func (x *scrubExecutor) Execute(ctx context.Context, call ai.Content, update func(tools.Result)) (out tools.Result) {
	defer func() {
		if p := recover(); p != nil {
			out = tools.ErrorResult(fmt.Sprintf("Tool %s crashed: %v", call.Name, p))
		}
		out = scrubResult(x.secrets, out)
	}()
	scrubbed := func(r tools.Result) {
		if update != nil {
			update(scrubResult(x.secrets, r))
		}
	}
	return x.next.Execute(ctx, call, scrubbed)
}

// scrubResult returns r with the secrets replaced in its text blocks and
// its details; r itself is not changed. Details are scrubbed in their JSON
// form, which is what is recorded; details that cannot be marshalled are
// left for resultMessage to refuse.
func scrubResult(s *tools.Secrets, r tools.Result) tools.Result {
	if r.Content != nil {
		cs := make([]ai.Content, len(r.Content))
		for i, c := range r.Content {
			if c.Type == ai.TypeText {
				c.Text = s.Scrub(c.Text)
			}
			cs[i] = c
		}
		r.Content = cs
	}
	if r.Details != nil {
		if raw, err := marshalDetails(r.Details); err == nil {
			if clean := s.Scrub(string(raw)); clean != string(raw) {
				r.Details = json.RawMessage(clean)
			}
		}
	}
	return r
}
