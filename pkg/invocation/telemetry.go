package invocation

import (
	"errors"
	"time"

	"gopi/pkg/exitcode"
	"gopi/pkg/mode"
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

// traceRun starts the run's telemetry (the Assembly's TraceRun: off
// unless the OTEL_* variables or settings ask for traces) and returns
// what ends it, given the run's outcome and execute's error: the run's
// spans are sent then, within a bound, with the exit code.
func traceRun(pr *prepared, start time.Time) func(o *mode.Outcome, err *error) {
	end := pr.h.Assembly.TraceRun(pr.h.prompt, start)
	return func(o *mode.Outcome, err *error) {
		code := exitcode.OK // execute returns an *Exit or nil
		var e *Exit
		if errors.As(*err, &e) {
			code = e.Code
		}
		end(telemetry.End{Reason: string(o.Result.Reason), ExitCode: code, Steps: o.Result.Steps, Usage: o.Result.Usage,
			Class: string(o.Class), Err: o.Cause()})
	}
}
