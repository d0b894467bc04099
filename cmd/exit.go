package cmd

import (
	"fmt"

	"gopi/pkg/assemble"
)

func usageErr(format string, a ...any) error { return assemble.Usagef(format, a...) }

// reported is an error whose output was already written; Main only exits.
type reported struct{ code int }

func (r *reported) Error() string { return fmt.Sprintf("exit %d", r.code) }
