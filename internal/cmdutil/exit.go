package cmdutil

import (
	"context"
	"errors"
	"strings"

	"github.com/spf13/cobra"

	"gopi/pkg/ai"
	"gopi/pkg/assemble"
	"gopi/pkg/exitcode"
	"gopi/pkg/invocation"
)

// ClassOf returns the class of a failure before the run: what
// invocation.ClassOf says, cobra's unknown command a usage error.
func ClassOf(err error) ai.Class {
	var ce *assemble.Error
	if !errors.As(err, &ce) && !errors.Is(err, context.Canceled) && strings.HasPrefix(err.Error(), "unknown command ") {
		return ai.ClassUsage // cobra's, which has no type of its own
	}
	return invocation.ClassOf(err)
}

// UsageArgs makes a wrong number of arguments a usage error (exit 2) in
// c and every command below it; cobra's own errors would exit 1.
func UsageArgs(c *cobra.Command) {
	if check := c.Args; check != nil {
		c.Args = func(c *cobra.Command, args []string) error {
			if err := check(c, args); err != nil {
				return ArgsUsageErr(c, args, err)
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		UsageArgs(sub)
	}
}

// ExitCodesOf is the exit code table of c's help (pkg/exitcode).
func ExitCodesOf(c *cobra.Command) string {
	table, _ := exitcode.Table(strings.TrimPrefix(strings.TrimPrefix(c.CommandPath(), c.Root().Name()), " "))
	return table
}

// SetExitHelp ends the usage (and so the help) of root and every command
// below it with that command's own exit codes.
func SetExitHelp(root *cobra.Command) {
	cobra.AddTemplateFunc("exitCodes", ExitCodesOf)
	root.SetUsageTemplate(root.UsageTemplate() + "\n{{exitCodes .}}\n")
}
