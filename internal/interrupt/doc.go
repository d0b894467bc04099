// Package interrupt is how a gopi command ends when it is asked to, and
// when nobody reads what it writes: the process's abort signals, the
// forced exit, and a stdout whose reader went away or stopped reading.
// Like cli/cli's iostreams it holds the process's streams in one small
// place and hands them to the command explicitly (Run.Stdout,
// Run.Stderr, Pipes): nothing here swaps a stream another package holds.
//
// Its guarantees:
//
//   - The first abort signal (SIGINT, SIGTERM, SIGHUP; Ctrl-C or
//     Ctrl-Break in a Windows console) cancels the command's context: a
//     run ends aborted with its session consistent, and gopi exits
//     ExitCode (130).
//   - A second one says "gopi: interrupted again: exiting at once" on
//     stderr, gives the forced exit's last words (Run.OnForce: a run's
//     result object) at most ForceWait, stops at once what Config.Kill
//     stops (bash's process groups, MCP servers), gives Config.Flush (the
//     open Assemblies' traces, Kills.AbandonAll) at most FlushWait and
//     exits ExitCode, whatever the command is doing.
//   - SIGPIPE is caught while a trap is set: a write to a stdout whose
//     reader is gone fails with EPIPE instead of killing the process. A
//     run's stdout (Stdout) then cancels the run and takes nothing more
//     (Gone): the run ends as an interrupt ends it.
//   - A run's signals are registered in the background while it reads
//     its settings; until they are, its writes to stdout and stderr wait,
//     and so does Run.Ready, which the run calls before it reads stdin or
//     starts anything: nothing reaches a broken pipe before SIGPIPE is
//     caught.
//   - Once a run is cancelled, each write to a stdout that is a pipe or a
//     socket waits at most StopWait for its reader, and so does stderr
//     when it shares stdout's pipe (2>&1); a write that waited in vain
//     drops the rest of stdout (Stuck, StuckLine), so a reader that
//     stopped reading does not keep gopi from ending its session.
//
// Three waits are bounded, and only these: the forced exit's last words
// (ForceWait) and its flush (FlushWait), and a write after the run was
// cancelled (StopWait). Before
// a run is cancelled a write waits for its reader as long as it takes.
package interrupt
