// Package chat is gopi's interactive chat without its terminal: one
// prompt per line, steering and follow-ups while a run is going on,
// commands (/tree, /leaf, /model, /thinking, /compact, /session, /new,
// /quit), and a status line after every run. It reads lines from a
// LineReader and writes to an io.Writer (a LiveWriter gets the live row:
// the answer's line still arriving, or a spinner); pkg/chat/term is the
// terminal that gives it both. What it needs from above (another Runtime
// for a leaf, model, thinking level or new session; prompt expansion;
// drawing the session tree) is passed in as Deps: it reads no flags,
// settings or environment. AssemblyDeps are the Deps over an
// Assembly (pkg/assemble): its Reopen, its session's tree.
//
// Guarantees:
//   - Output is written whole lines at a time; the first write error
//     is what Run returns.
//   - When Run returns, the active run (if any) was aborted and its
//     messages are in the session; a cancelled context ends the chat as
//     /quit does.
//   - A panic of the display (on the Agent's goroutine) or of a
//     background operation ends the chat: Run returns it as an error
//     instead of leaving the chat waiting for input; a line read as it
//     fails is not acted on.
//   - A Deps.Open that fails leaves the current Runtime in use, and the
//     error is shown as a line.
package chat
