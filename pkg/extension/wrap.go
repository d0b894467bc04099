package extension

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"gopi/pkg/ai"
	"gopi/pkg/loop"
	"gopi/pkg/tools"
)

// Wrap returns an executor that runs the before-hooks, then next (unless
// a hook denied the call), then the after-hooks. It offers next's tools
// unchanged. The runtime passes the result to loop.Config.Tools.
func (h *Host) Wrap(next loop.Executor) loop.Executor {
	return &executor{host: h, next: next}
}

type executor struct {
	host *Host
	next loop.Executor
}

// Denial is the Details of a result a hook denied.
type Denial struct {
	Hook   string `json:"deniedBy"`
	Reason string `json:"reason"`
}

func (x *executor) Specs() []ai.ToolSpec { return x.next.Specs() }

// Execute always returns a result for the call.
func (x *executor) Execute(ctx context.Context, content ai.Content, update func(tools.Result)) tools.Result {
	h := x.host
	h.mu.RLock()
	before, after := h.before, h.after
	h.mu.RUnlock()

	call := Call{ID: content.ID, Name: content.Name, Args: slices.Clone(content.Arguments)}
	if len(call.Args) == 0 {
		call.Args = json.RawMessage("{}")
	}
	for _, b := range before {
		d := h.runBefore(ctx, b, call)
		if d.Deny {
			return deniedResult(call, b.name, d.Reason)
		}
		if d.Args != nil {
			call.Args = slices.Clone(d.Args)
		}
	}
	content.Arguments = call.Args
	res := x.next.Execute(ctx, content, update)
	for _, a := range after {
		res = h.runAfter(ctx, a, call, res)
	}
	return res
}

// runBefore runs one before-hook; a panic or arguments that are not a JSON
// object deny the call (fail closed).
func (h *Host) runBefore(ctx context.Context, b named[BeforeHook], call Call) (d Decision) {
	defer func() {
		if p := recover(); p != nil {
			h.report(Diagnostic{Hook: b.name, Tool: call.Name, CallID: call.ID, Message: panicText("before-tool hook panicked", p)})
			d = Deny(fmt.Sprintf("the hook crashed (%v), and a failing hook denies the call", p))
		}
	}()
	d = b.fn(ctx, Call{ID: call.ID, Name: call.Name, Args: slices.Clone(call.Args)})
	if !d.Deny && d.Args != nil && !isObject(d.Args) {
		return Deny(fmt.Sprintf("the hook replaced the arguments with something that is not a JSON object: %s", preview(string(d.Args))))
	}
	if d.Deny && d.Reason == "" {
		d.Reason = "no reason given"
	}
	return d
}

// runAfter runs one after-hook on a copy of the result; a panic keeps the
// result as it was and is reported.
func (h *Host) runAfter(ctx context.Context, a named[AfterHook], call Call, res tools.Result) (out tools.Result) {
	out = res
	defer h.recoverAs(a.name, call, "after-tool hook panicked; its change, if any, was dropped")
	changed, replace := a.fn(ctx, Call{ID: call.ID, Name: call.Name, Args: slices.Clone(call.Args)}, cloneResult(res))
	if replace {
		out = changed
	}
	return out
}

func deniedResult(call Call, hook, reason string) tools.Result {
	r := tools.ErrorResult(fmt.Sprintf("The %s call was denied by hook %s and did not run: %s", call.Name, hook, reason))
	r.Details = Denial{Hook: hook, Reason: reason}
	return r
}

func isObject(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && t[0] == '{' && json.Valid(t)
}

func cloneResult(r tools.Result) tools.Result {
	if r.Content != nil {
		cs := make([]ai.Content, len(r.Content))
		for i, c := range r.Content {
			cs[i] = c.Clone()
		}
		r.Content = cs
	}
	return r
}

// maxPreview bounds the text of a hook's output quoted in a reason.
const maxPreview = 2000

func preview(s string) string {
	if len(s) <= maxPreview {
		return s
	}
	cut := maxPreview
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes in all)", s[:cut], len(s))
}
