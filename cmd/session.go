package cmd

import (
	"errors"

	"github.com/spf13/cobra"

	"gopi/pkg/assemble"
	"gopi/pkg/invocation"
	"gopi/pkg/session"
)

func newSessionCmd(sys *System) *cobra.Command {
	c := &cobra.Command{
		Use:   "session",
		Short: "Inspect sessions and their leaves",
	}
	c.AddCommand(newSessionListCmd(sys), newSessionTreeCmd(sys), newSessionShowCmd(sys), newSessionExportCmd(sys))
	refuseUnknownSubcommand(c)
	return c
}

// leafErr makes a --leaf that names no entry of the session (or a path
// that loops) a usage error.
func leafErr(err error) error {
	if errors.Is(err, session.ErrUnknownLeaf) || errors.Is(err, session.ErrAmbiguous) || errors.Is(err, session.ErrCycle) {
		return usageErr("--leaf: %v", err)
	}
	return err
}

func newSessionListCmd(sys *System) *cobra.Command {
	var all, children, asJSON bool
	var cwdFlag string
	c := &cobra.Command{
		Use:   "list",
		Short: "List the sessions of the working directory, newest first",
		Long: "List the sessions of the working directory, newest first.\n\n" +
			"Sub-agents' sessions (a task call's child runs, whose header names the parent session and call) are left out; " +
			"--children lists them too, with their parent's id. `gopi session tree` and `show` open them by id either way.",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			root, cwd, err := sys.Sessions(cwdFlag)
			if err != nil {
				return err
			}
			infos, err := listSessions(root, cwd, all)
			if err != nil {
				return assemble.SessionErr(err)
			}
			if !children {
				infos = session.WithoutSubagents(infos)
			}
			return session.WriteSummaries(sys.Stdout, session.Summaries(root, infos, invocation.ReadPaused), asJSON, all)
		},
	}
	c.Flags().BoolVar(&all, "all", false, "sessions of every folder")
	c.Flags().BoolVar(&children, "children", false, "sub-agents' sessions too (with the parent's id)")
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	c.Flags().StringVar(&cwdFlag, "cwd", "", "working directory (default: the current one)")
	return c
}

// listSessions lists cwd's sessions under root, or with all those of
// every folder, newest first.
func listSessions(root, cwd string, all bool) ([]session.Info, error) {
	if all {
		return session.ListAll(root)
	}
	return session.List(root, cwd)
}
