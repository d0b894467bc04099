package cmd

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"gopi/internal/buildinfo"
)

// version is the version set at link time ("" when none was): what
// telemetry calls service.version.
var version = buildinfo.Stamped()

func newVersionCmd(sys *System) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "version",
		Short: "Print gopi's version, the commit it was built from, and the Go version",
		Long: `Print gopi's module version, the VCS revision and time it was built from
("+dirty" when the checkout had uncommitted changes), and the Go version.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return printVersion(sys, asJSON)
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON: version, revision, time, modified, go")
	return c
}

// printVersion is gopi version (and gopi --version): one line, or one
// JSON object.
func printVersion(sys *System, asJSON bool) error {
	v := buildinfo.Read()
	if asJSON {
		return json.NewEncoder(sys.Stdout).Encode(v)
	}
	_, err := fmt.Fprintln(sys.Stdout, v)
	return err
}
