package invocation

import (
	"errors"
	"time"

	"gopi/pkg/exitcode"
	"gopi/pkg/mode"
	"gopi/pkg/telemetry"
)

// Telemetry off costs no work here beyond reading a few variables, and
// nothing at start-up: pkg/telemetry links only the standard library
// (TestLinksOnlyTheStandardLibrary), no package with init functions.

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
