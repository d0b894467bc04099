package cmd

import (
	"github.com/spf13/cobra"

	"gopi/internal/cmdutil"
	"gopi/pkg/ai"
	"gopi/pkg/exitcode"
	"gopi/pkg/mode"
)

// runFlagError reports a flag error of gopi run in the output mode the
// arguments ask for: json and events promise one result object for every
// invocation, also one whose flags do not parse.
func runFlagError(sys *System) func(*cobra.Command, error) error {
	return func(c *cobra.Command, err error) error {
		uerr := cmdutil.FlagUsageErr(c, err)
		m := cmdutil.LenientMode(c.Flags(), sys.Args)
		if m != mode.JSON && m != mode.Events {
			return uerr
		}
		out := mode.IO{Out: sys.Stdout, Err: sys.Stderr}
		if werr := mode.WriteFailure(out, m, ai.ClassUsage, uerr, nil, nil, 0); werr != nil {
			return werr
		}
		return &reported{Code: exitcode.Usage}
	}
}
