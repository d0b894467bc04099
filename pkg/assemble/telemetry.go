package assemble

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"gopi/pkg/agent"
	"gopi/pkg/ai"
	"gopi/pkg/loop"
	"gopi/pkg/runtime"
	"gopi/pkg/telemetry"
)

// TelemetrySettings say how the Runtimes are traced (pkg/telemetry: off
// unless the OTEL_* variables of Env.Environ or Settings ask for traces).
type TelemetrySettings struct {
	Settings telemetry.Settings // the "telemetry" key
	Version  string             // service.version
	// Prompts traces every prompt of every Runtime the Assembly builds,
	// each as a trace of its own (chat, rpc, acp); without it a caller
	// traces its one run with TraceRun.
	Prompts bool
}

// telemetry is the Telemetry the settings ask for, nil when off. A
// setting it cannot use is said on stderr once per Assembly.
func (a *Assembly) telemetry(scrub func(string) string) *telemetry.Telemetry {
	cfg, err := telemetry.LoadWith(a.env.lookup, a.s.Telemetry.Settings)
	if err != nil {
		if !a.telemetryWarned {
			a.telemetryWarned = true
			fmt.Fprintf(a.env.Stderr, "gopi: telemetry off: %v\n", err)
		}
		return nil
	}
	tel := telemetry.New(cfg, telemetry.Options{Version: a.s.Telemetry.Version, Scrub: scrub, Stderr: a.env.Stderr})
	a.traced.add(tel)
	return tel
}

// traced are the Telemetries an Assembly made, one per Runtime traced
// (chat, rpc, acp) or the one of TraceRun. Safe for concurrent use: a
// forced exit reads them from the signal's goroutine.
type traced struct {
	mu   sync.Mutex
	tels []*telemetry.Telemetry
}

func (t *traced) add(tel *telemetry.Telemetry) {
	if tel == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.tels = append(t.tels, tel)
}

// Abandon ends the traces of the runs still going as a forced exit ends
// them (aborted, with exitCode; their open spans abandoned) and sends
// what every Telemetry of the Assembly recorded and has not sent, all at
// once, each within its flush bound (a second). Telemetry off, it does
// nothing. It is what a forced exit calls, after Kill.
func (a *Assembly) Abandon(exitCode int) {
	a.traced.mu.Lock()
	tels := a.traced.tels
	a.traced.mu.Unlock()
	end := telemetry.End{Reason: string(loop.ReasonAborted), ExitCode: exitCode, Class: string(ai.ClassAborted),
		Err: errors.New("interrupted again: gopi exited at once")}
	var wg sync.WaitGroup
	for _, tel := range tels {
		wg.Go(func() { tel.Abandon(end) })
	}
	wg.Wait()
}

// tracePrompts records each prompt rt runs as a trace of its own, with
// Settings.Telemetry.Prompts; the session id ties them.
func (a *Assembly) tracePrompts(rt *runtime.Runtime) {
	if !a.s.Telemetry.Prompts || a.parent.depth > 0 {
		return
	}
	tel := a.telemetry(rt.Secrets().Scrub)
	if tel == nil {
		return
	}
	info := telemetry.Info{Provider: a.choice.Info.Provider, Model: a.choice.Info.ID, SessionFile: a.file, Leaf: rt.Leaf}
	if a.store != nil {
		info.SessionID = a.store.Header().ID
	}
	rec := tel.Prompts(info)
	rt.Control().Subscribe(func(e agent.Event) { rec(e.RunID, e.Event) }, agent.Except(agent.RunEnd))
}

// TraceRun starts the telemetry of one run of the last Runtime (gopi
// run's), its prompt and start given, and returns what ends it: the
// run's spans are sent then, within a bound, with the session file and
// leaf filled in. A setting telemetry cannot use is said on stderr and
// the run goes on without it.
func (a *Assembly) TraceRun(prompt []ai.Message, start time.Time) (end func(telemetry.End)) {
	rt := a.rt
	tel := a.telemetry(rt.Secrets().Scrub)
	if tel == nil {
		return func(telemetry.End) {}
	}
	info := telemetry.Info{Provider: a.choice.Info.Provider, Model: a.choice.Info.ID, Prompt: prompt, Denials: a.held.guard.Denials, Start: start,
		SessionFile: a.file}
	if a.store != nil {
		info.SessionID = a.store.Header().ID
	}
	rec := tel.Start(info)
	unsub := rt.Control().Subscribe(func(e agent.Event) { rec.Event(e.RunID, e.Event) }, agent.Except(agent.RunEnd))
	return func(e telemetry.End) {
		unsub()
		e.SessionFile, e.LeafID = a.file, rt.Leaf()
		rec.End(e)
	}
}
