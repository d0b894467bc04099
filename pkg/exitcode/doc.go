// Package exitcode is gopi's exit codes, the contract scripts and CI rely
// on: the codes themselves, the one mapping of an error class (ai.Class,
// the result object's error.class) to its code, and the table of codes
// each command's help ends with.
//
// Guarantees: a code keeps its meaning; every class maps to exactly one
// code, one this package does not know to Internal; only the --timeout
// deadline exits Timeout (a provider's own stall is a provider failure);
// a run's table (gopi run, bare gopi) lists every code once.
package exitcode
