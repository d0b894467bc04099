package cmd

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"gopi/pkg/ai"
	"gopi/pkg/assemble"
	"gopi/pkg/exitcode"
)

// classedError is a failure before the run, with its class.
type classedError = assemble.Error

func usageErr(format string, a ...any) error { return assemble.Usagef(format, a...) }

func sessionErr(err error) error { return assemble.SessionErr(err) }

// classOf returns the class of a failure before the run.
func classOf(err error) ai.Class {
	var ce *classedError
	if errors.As(err, &ce) {
		return ce.Class
	}
	if errors.Is(err, context.Canceled) {
		return ai.ClassAborted
	}
	if strings.HasPrefix(err.Error(), "unknown command ") {
		return ai.ClassUsage // cobra's, which has no type of its own
	}
	return ai.ClassOf(err)
}

// usageArgs makes a wrong number of arguments a usage error (exit 2) in
// c and every command below it; cobra's own errors would exit 1.
func usageArgs(c *cobra.Command) {
	if check := c.Args; check != nil {
		c.Args = func(c *cobra.Command, args []string) error {
			if err := check(c, args); err != nil {
				return argsUsageErr(c, args, err)
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		usageArgs(sub)
	}
}

// reported is an error whose output was already written; Main only exits.
type reported struct{ code int }

func (r *reported) Error() string { return fmt.Sprintf("exit %d", r.code) }

// exitCodesOf is the exit code table of c's help (pkg/exitcode).
func exitCodesOf(c *cobra.Command) string {
	table, _ := exitcode.Table(strings.TrimPrefix(strings.TrimPrefix(c.CommandPath(), c.Root().Name()), " "))
	return table
}

// setExitHelp ends the usage (and so the help) of root and every command
// below it with that command's own exit codes.
func setExitHelp(root *cobra.Command) {
	cobra.AddTemplateFunc("exitCodes", exitCodesOf)
	root.SetUsageTemplate(root.UsageTemplate() + "\n{{exitCodes .}}\n")
}
