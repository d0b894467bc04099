package cmd

import (
	"fmt"

	"gopi/pkg/assemble"
)

// classedError is a failure before the run, with its class.
type classedError = assemble.Error

func usageErr(format string, a ...any) error { return assemble.Usagef(format, a...) }

func sessionErr(err error) error { return assemble.SessionErr(err) }

// reported is an error whose output was already written; Main only exits.
type reported struct{ code int }

func (r *reported) Error() string { return fmt.Sprintf("exit %d", r.code) }
