// Package term is the chat's terminal: the line editor (readline) over a
// terminal in raw mode, the live row kept between the chat's lines and
// the prompt, and the keys readline would misread (Alt-Enter, pasted
// line breaks). It implements chat.LineReader and chat.LiveWriter and
// knows nothing of the program above it: the streams, the history file
// and optionally a width are passed in (Config).
//
// Guarantees:
//   - The terminal is raw from Open to Close, so Ctrl-C is a key
//     (chat.ErrInterrupt from ReadLine), never a signal, even between
//     two prompts.
//   - Whatever ends the chat (Close, Interrupt, an error or a panic in
//     Open) gives the terminal back the modes it had; Close and
//     Interrupt may be called more than once and from another goroutine.
//   - Lines written to Out appear whole above the prompt; the live row
//     is one terminal row, redrawn in place and removed before a key
//     ends a line.
//   - Text pasted with line breaks stays one input ("\n" inside the
//     line ReadLine returns); Alt-Enter marks the line as a follow-up.
//   - On Windows the console is switched to VT input and output (raw
//     input without VT on a console that lacks it) and its modes are
//     restored the same way.
package term
