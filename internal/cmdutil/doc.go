// Package cmdutil holds what gopi's cobra commands share that is not a
// command itself: pflag's and cobra's errors said in the user's words
// (plainerr.go), contradicting flags refused (conflicts.go), run's output
// mode read from its flags, also leniently for a flag error (outmode.go),
// the class of a failure before the run, usage errors for a wrong number
// of arguments and the exit code table of each command's help (exit.go),
// and the small helpers of flag value completion (completion.go).
//
// Guarantees:
//   - Every error it returns for the user's input is an *assemble.Error of
//     class usage (exit 2), its message word for word what the scripts of
//     testdata/script assert.
//   - It reads and writes nothing: no environment, no files, no streams.
//   - It imports cobra, pflag and packages under pkg/; nothing under pkg/
//     imports it (only cmd does).
package cmdutil

import "gopi/pkg/assemble"

func usageErr(format string, a ...any) error { return assemble.Usagef(format, a...) }
