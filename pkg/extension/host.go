package extension

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"

	"gopi/pkg/loop"
	"gopi/pkg/tools"
)

// Call is a tool call as hooks see it.
type Call struct {
	ID   string
	Name string
	Args json.RawMessage // a JSON object
}

// Decision is a before-hook's answer. The zero value allows the call.
type Decision struct {
	Deny   bool
	Reason string // why the call is denied; the model reads it
	// Args, when not nil, replaces the call's arguments (a JSON object).
	Args json.RawMessage
}

// Allow lets the call run unchanged.
func Allow() Decision { return Decision{} }

// Deny stops the call; reason is shown to the model.
func Deny(reason string) Decision { return Decision{Deny: true, Reason: reason} }

// ReplaceArgs lets the call run with other arguments.
func ReplaceArgs(args json.RawMessage) Decision { return Decision{Args: args} }

// BeforeHook decides on a call before it runs. Calls of one batch run
// concurrently, so a hook must be safe for concurrent use.
type BeforeHook func(ctx context.Context, call Call) Decision

// AfterHook sees a call's result; returning true replaces it with the
// returned result, false keeps it. Safe for concurrent use, as BeforeHook.
type AfterHook func(ctx context.Context, call Call, result tools.Result) (tools.Result, bool)

// Observer receives every loop event of a run, synchronously and in order,
// as a deep copy.
type Observer func(runID int, e loop.Event)

// Diagnostic records a hook or observer that misbehaved.
type Diagnostic struct {
	Hook    string // the name it was registered with
	Tool    string // the tool call's name; "" for observers
	CallID  string
	Message string
}

func (d Diagnostic) String() string {
	if d.Tool == "" {
		return fmt.Sprintf("hook %s: %s", d.Hook, d.Message)
	}
	return fmt.Sprintf("hook %s on %s call %s: %s", d.Hook, d.Tool, d.CallID, d.Message)
}

// Options configures a Host.
type Options struct {
	// Report receives each Diagnostic as it happens (for stderr); calls
	// are serialised. Nil: diagnostics are only kept for Diagnostics().
	Report func(Diagnostic)
	// Secrets are scrubbed from diagnostics (a panic's value and stack).
	Secrets *tools.Secrets
}

// maxDiagnostics bounds the diagnostics a Host keeps.
const maxDiagnostics = 1000

// Host holds the hooks and observers. Register them before the run
// starts; a Host is safe for concurrent use.
type Host struct {
	opts Options

	mu        sync.RWMutex
	before    []named[BeforeHook]
	after     []named[AfterHook]
	observers []named[Observer]

	diagMu sync.Mutex
	diags  []Diagnostic
}

type named[F any] struct {
	name string
	fn   F
}

// NewHost returns a Host without hooks.
func NewHost(opts Options) *Host { return &Host{opts: opts} }

// BeforeTool adds a before-hook; name identifies it in reasons and
// diagnostics.
func (h *Host) BeforeTool(name string, fn BeforeHook) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.before = append(h.before, named[BeforeHook]{name, fn})
}

// AfterTool adds an after-hook.
func (h *Host) AfterTool(name string, fn AfterHook) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.after = append(h.after, named[AfterHook]{name, fn})
}

// Observe adds an observer of loop events.
func (h *Host) Observe(name string, fn Observer) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.observers = append(h.observers, named[Observer]{name, fn})
}

// Notify passes one event to every observer, in registration order, each
// its own copy. The runtime calls it for every event of a run.
func (h *Host) Notify(runID int, e loop.Event) {
	h.mu.RLock()
	obs := h.observers
	h.mu.RUnlock()
	for _, o := range obs {
		func() {
			defer h.recoverAs(o.name, Call{}, "observer panicked")
			o.fn(runID, e.Clone())
		}()
	}
}

// Diagnostics returns what misbehaved so far, oldest first.
func (h *Host) Diagnostics() []Diagnostic {
	h.diagMu.Lock()
	defer h.diagMu.Unlock()
	return append([]Diagnostic(nil), h.diags...)
}

func (h *Host) report(d Diagnostic) {
	d.Message = h.opts.Secrets.Scrub(d.Message)
	h.diagMu.Lock()
	defer h.diagMu.Unlock()
	if len(h.diags) < maxDiagnostics {
		h.diags = append(h.diags, d)
	}
	if h.opts.Report != nil {
		h.opts.Report(d)
	}
}

// recoverAs, deferred, turns a panic into a Diagnostic.
func (h *Host) recoverAs(hook string, c Call, what string) {
	if p := recover(); p != nil {
		h.report(Diagnostic{Hook: hook, Tool: c.Name, CallID: c.ID, Message: panicText(what, p)})
	}
}

func panicText(what string, p any) string {
	return fmt.Sprintf("%s: %v\n%s", what, p, firstLines(string(debug.Stack()), 12))
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}
