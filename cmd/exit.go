package cmd

import (
	"gopi/pkg/assemble"
	"gopi/pkg/invocation"
)

func usageErr(format string, a ...any) error { return assemble.Usagef(format, a...) }

// reported is an error whose output was already written; Main only exits.
type reported = invocation.Exit
