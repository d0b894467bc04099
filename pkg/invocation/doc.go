// Package invocation is one invocation of gopi below its command line:
// the Process it was given (streams, environment, working folder, clock,
// the open Assemblies a forced exit kills), the settings read through
// the flags the command was given (Settings, AssemblySettings), the Host
// every front door opens (Conversation for chat, rpc and each ACP
// session; Run's own for gopi run), and gopi run itself (Run): the
// prompt through one Assembly to one result and an exit code.
//
// cmd binds the flags into options and hands them over as an Agent and
// RunOptions; nothing here knows cobra, and nothing here reads the
// process itself (cmd.OSSystem is the one place that does).
//
// Guarantees:
//   - Run writes every outcome to stdout through one mode.Output: in
//     json and events exactly one result line on every exit (the run's
//     result, a refusal before it, a failure while opening, a forced
//     exit), nothing after it; a failure once the session file exists
//     names it, and events start with its header line.
//   - Run returns nil or an *Exit whose output was already written, its
//     Code as pkg/exitcode maps the outcome; the one other error is a
//     failure that could not be written to stdout, left for the caller
//     to say.
//   - Nothing is sent to a model before the settings, the resources,
//     --output-schema and the prompt (words, @file arguments, stdin)
//     were read and accepted, in that order; --print-system-prompt
//     prints the prompt and sends nothing.
//   - --timeout's deadline covers reading stdin; the first signal
//     aborts the run and a second exits at once (internal/interrupt);
//     a stdout whose reader went away ends the run as interrupted and
//     is said on stderr.
//   - Every Host opened is released by its Close (Run's by Run itself),
//     and while open it is in Process.Hosts for a forced exit to kill; a
//     Conversation that fails leaves nothing open. When Run returns its
//     signal trap is gone.
//   - A run's telemetry span (when OTEL_* or settings ask for it)
//     carries the exit code Run returns.
package invocation
