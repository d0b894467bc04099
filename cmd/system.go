// Package cmd is gopi's command line: cobra commands, their flags bound
// into options structs, and short run functions over the packages that
// do the work (pkg/invocation opens every front door's host and runs
// gopi run; pkg/chat, pkg/rpc and pkg/acp serve the others). Nothing
// below this package reads the environment, the process's streams or
// its arguments.
package cmd

import "gopi/pkg/invocation"

// System is what gopi takes from its process. Main receives it so that
// tests run the whole command line in-process.
type System = invocation.Process

// OSSystem is the real process.
func OSSystem() System { return invocation.OS() }
