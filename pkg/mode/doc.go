// Package mode encodes what a Runtime did in gopi run's output modes:
// print writes the answer, json one result object, events the session
// header, every Agent event (pi 1.6's shapes, agent_settled) and the
// result object, one JSON object per line. Run never creates a Runtime:
// it sends the prompt, each of Options.Then while the one before ended
// with stop or length, and up to Options.OutputRetries corrections of an
// answer the schema (pkg/structured) refuses (rt.Prompt at most 1 +
// len(Then) + OutputRetries times), reported as one result. An output
// write failure is returned as it is, nothing is written after it, and
// the session is not rolled back. Output is the one writer of an
// invocation's result line: in json and events mode exactly one is
// written on every exit (the run's, a failure before it, a flag error, a
// forced exit), nothing after it. The chat and rpc use its Lines and
// EventStream.
package mode
