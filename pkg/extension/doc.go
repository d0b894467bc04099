// Package extension lets embedders and users control what tools do: hooks
// before a tool call (allow, deny with a reason, or replace the
// arguments), hooks after it (observe, or replace the result), and
// observers of every loop event. Command hooks declared in settings run
// external programs with Claude Code's hook protocol.
//
// Guarantees:
//   - Hooks run in registration order. The first deny wins and the tool
//     does not run; later before-hooks see the arguments earlier ones
//     replaced.
//   - Fail closed: a before-hook that panics, or a command hook that
//     crashes, times out, exits with a code other than 0 or 2, or prints
//     invalid JSON, denies the call and says why. An after-hook command
//     that fails the same way withholds the tool's output.
//   - A panicking after-hook or observer is recorded as a Diagnostic and
//     skipped; it never stops the run.
//   - Every call the wrapped executor gets returns exactly one result: a
//     denied call returns an error result carrying the reason, which the
//     model reads, so the transcript stays paired and the run continues.
//   - Command hooks run in the injected working directory with the
//     injected environment minus provider credentials, in their own
//     process group, which is killed on timeout or cancellation.
package extension
