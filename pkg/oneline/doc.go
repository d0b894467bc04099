// Package oneline says what a run is doing in one terminal line, in the
// words every face of gopi shows a person: print mode's progress line and
// stderr notes (pkg/mode), the chat's lines and live row (pkg/chat), rpc's
// notes on stderr (pkg/rpc). A text shortened to its first line (Text), a
// tool call by its key argument (KeyArgument), a request that left the
// oldest turns out (Trim), and the spinner's frames (Spinner).
//
// Guarantees: every function is pure, and nothing here writes anywhere;
// Text never holds a line feed, KeyArgument no control character at all.
package oneline
