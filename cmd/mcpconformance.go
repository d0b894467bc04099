package cmd

import (
	"github.com/spf13/cobra"

	"gopi/internal/buildinfo"
	"gopi/pkg/mcp"
)

// newMCPConformanceCmd is the client under test of the MCP conformance
// suite (mcp.Conformance), run with a server's URL.
func newMCPConformanceCmd(sys *System) *cobra.Command {
	return &cobra.Command{
		Use:    "conformance-client URL",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return mcp.Conformance(c.Context(), args[0], mcp.Options{Getenv: sys.Getenv, Version: buildinfo.Read().Version}, sys.Stdout)
		},
	}
}
