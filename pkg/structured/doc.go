// Package structured is a run's structured output (--output-schema): the
// JSON Schema its final answer must satisfy, the instructions that tell
// the model so, the check of an answer, and the correction sent back to
// the model when an answer does not fit.
//
// Guarantees:
//   - A schema is read from the document alone: draft 2020-12 or draft-07,
//     references outside the document refused, as are unknown type names
//     and a $ref cycle that reads none of the answer (internal/schemaguard).
//     Nothing is ever fetched to check an answer.
//   - Check accepts exactly one JSON value, the whole answer or the inside
//     of the one fenced code block it consists of; integers stay exact;
//     the value returned is compact.
//   - Nothing here sends anything: the caller (pkg/mode's Run) decides
//     when to send a Correction and how often.
package structured
