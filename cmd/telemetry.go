package cmd

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"gopi/pkg/agent"
	"gopi/pkg/assemble"
	"gopi/pkg/mode"
	"gopi/pkg/runtime"
	"gopi/pkg/telemetry"
)

// Telemetry off costs no work here beyond reading a few variables, but
// linking the OpenTelemetry tracer SDK is not free: 14 of its packages
// have init functions that run at every start (GODEBUG=inittrace=1: about
// 0.2 ms, 11 KB in 137 allocations, half of it
// sdk/trace/internal/observ's attribute sets), and the stripped binary
// grows by 1.3 MB. All of them are sdk/trace's own imports (the global
// otel package, internal/global with auto/sdk, sdk/resource, semconv,
// observ); pkg/telemetry adds none (TestLinksNothingBeyondTheTracerSDK).

// traceRun starts the run's telemetry (pkg/telemetry: off unless the
// OTEL_* variables ask for traces) and returns what ends it, given the
// run's outcome and execute's error: the run's spans are sent then,
// within a bound. A setting telemetry cannot use is said on stderr and
// the run goes on without it.
func traceRun(sys *System, p *prepared, start time.Time) func(o *mode.Outcome, err *error) {
	cfg, err := telemetry.LoadWith(sys.lookupEnv, p.otel)
	if err != nil {
		fmt.Fprintf(sys.Stderr, "gopi: telemetry off: %v\n", err)
	}
	tel := telemetry.New(cfg, telemetry.Options{Version: version, Scrub: p.rt.Secrets().Scrub, Stderr: sys.Stderr})
	if tel == nil {
		return func(*mode.Outcome, *error) {}
	}
	info := telemetry.Info{Provider: p.model.Provider, Model: p.model.ID, Prompt: p.prompt, Denials: p.guard.Denials, Start: start}
	if p.store != nil {
		info.SessionID = p.store.Header().ID
	}
	rec := tel.Start(info)
	unsub := p.rt.Control().Subscribe(func(e agent.Event) { rec.Event(e.RunID, e.Event) }, agent.Except(agent.RunEnd))
	return func(o *mode.Outcome, err *error) {
		unsub()
		code := ExitOK
		var rep *reported
		if errors.As(*err, &rep) {
			code = rep.code
		} else if *err != nil {
			code = ExitInternal
		}
		cause := o.Err
		if cause == nil {
			cause = o.Result.Err
		}
		rec.End(telemetry.End{Reason: string(o.Result.Reason), ExitCode: code, Steps: o.Result.Steps, Usage: o.Result.Usage,
			SessionFile: p.file, LeafID: p.rt.Leaf(), Class: string(o.Class), Err: cause})
	}
}

// lookupEnv is os.LookupEnv on the injected environment.
func (s *System) lookupEnv(key string) (string, bool) {
	for i := len(s.Environ) - 1; i >= 0; i-- {
		kv := s.Environ[i]
		if len(kv) > len(key) && kv[len(key)] == '=' && kv[:len(key)] == key {
			return kv[len(key)+1:], true
		}
	}
	return "", false
}

// tracePrompts records each prompt rt runs as a trace of its own (chat
// and rpc, on every Runtime they open); the session id ties them.
func tracePrompts(sys *System, s telemetry.Settings, a *assemble.Assembly, rt *runtime.Runtime) {
	cfg, err := telemetry.LoadWith(sys.lookupEnv, s)
	if err != nil {
		if _, said := telemetryWarned.LoadOrStore(sys, true); !said {
			fmt.Fprintf(sys.Stderr, "gopi: telemetry off: %v\n", err)
		}
		return
	}
	tel := telemetry.New(cfg, telemetry.Options{Version: version, Scrub: rt.Secrets().Scrub, Stderr: sys.Stderr})
	if tel == nil {
		return
	}
	info := telemetry.Info{Provider: a.Model().Info.Provider, Model: a.Model().Info.ID, SessionFile: a.File(), Leaf: rt.Leaf}
	if st := a.Store(); st != nil {
		info.SessionID = st.Header().ID
	}
	rec := tel.Prompts(info)
	rt.Control().Subscribe(func(e agent.Event) { rec(e.RunID, e.Event) }, agent.Except(agent.RunEnd))
}

// telemetryWarned holds the Systems told their telemetry settings are
// unusable: chat and rpc open many Runtimes, the warning is said once.
var telemetryWarned sync.Map
