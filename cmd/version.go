package cmd

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X gopi/cmd.version=…".
var version = "dev"

func newVersionCmd(sys *System) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print gopi's version",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			v := version
			if info, ok := debug.ReadBuildInfo(); ok && v == "dev" && info.Main.Version != "" && info.Main.Version != "(devel)" {
				v = info.Main.Version
			}
			_, err := fmt.Fprintf(sys.Stdout, "gopi %s\n", v)
			return err
		},
	}
}
