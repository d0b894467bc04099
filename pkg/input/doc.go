// Package input reads the user's prompt as gopi run and gopi chat take
// it: the words of the command line, its @file arguments (text inlined
// with its path, images attached), stdin, and the expansion of a prompt
// template or skill.
//
// Guarantees:
//   - Nothing here touches the process's streams or environment: stdin,
//     the notice's writer, the working folder, the home folder, the bound,
//     the secret scrubber, the expander and the clock are given (Reader).
//   - A prompt is bounded by Reader.Limit bytes: arguments, @file text,
//     stdin (never read past Limit+1 bytes) and each expansion. Over the
//     bound, nothing is returned but a usage error naming the setting that
//     set it (Reader.LimitOrigin).
//   - A missing @file, one that is not a regular file, one of /proc or
//     /sys, and an image a model would refuse are usage errors: nothing
//     is sent. @file text has the secrets scrubbed from it.
//   - Every error is an *assemble.Error of class ai.ClassUsage, except an
//     interrupted or timed-out wait for stdin, which wraps the context's
//     error.
package input
