// Package rpc is gopi's rpc mode, pi 1.6's RPC protocol (gopi rpc,
// gopi run --mode rpc): a Server reads one JSON command per line and
// writes one JSON object per line, the responses and the session's
// events, the events exactly as events mode writes them (pkg/mode's
// Lines and EventStream). It knows nothing of flags, settings files or
// the process: what it needs from above (another Runtime for a leaf,
// model, thinking level, session or fork; models; prompt expansion;
// commands; export) is its Host, which the caller implements or takes
// as NewHost's AssemblyHost over an Assembly (pkg/assemble), with the
// values the command line resolved (HostConfig).
//
// Guarantees:
//   - Every non-blank command line gets one response (success false for bad
//     input, an unknown command or a line over Options.MaxLine), and
//     reading goes on; only the end of stdin, the context or a failed
//     write ends Serve.
//   - Records end at LF only; a record is written whole, never
//     interleaved with another.
//   - Runs, compactions and bash go on in the background, so steer,
//     follow_up and abort reach a running one; bash runs beside a run, its
//     message held until the run ends, as pi's; a model or thinking level
//     asked for during a run applies from the run's next request.
//   - A Host call that fails leaves the current Runtime in use.
//   - When Serve ends it aborts what is going on, waits until its
//     messages are in the session and releases the Runtime; after a
//     failed write nothing more is written.
package rpc
