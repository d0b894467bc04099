package cmd

import (
	"github.com/spf13/cobra"

	"gopi/pkg/invocation"
	"gopi/pkg/session"
)

func newSessionTreeCmd(sys *System) *cobra.Command {
	var asJSON bool
	var cwdFlag string
	c := &cobra.Command{
		Use:   "tree SESSION",
		Short: "Draw a session's tree so you can pick a leaf",
		Long:  "Draw the entries of a session (a file, or a prefix of its id) as a tree: one line per\nentry with its id, role or type and a preview; * marks leaves, => the newest one.",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			f, err := sys.ReadSession(args[0], cwdFlag)
			if err != nil {
				return err
			}
			return session.WriteTree(sys.Stdout, f, asJSON)
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the entries as JSON")
	c.Flags().StringVar(&cwdFlag, "cwd", "", "working directory (default: the current one)")
	return c
}

func newSessionShowCmd(sys *System) *cobra.Command {
	var leaf, cwdFlag string
	c := &cobra.Command{
		Use:   "show SESSION",
		Short: "Print the conversation along a path (the newest leaf unless --leaf)",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			f, err := sys.ReadSession(args[0], cwdFlag)
			if err != nil {
				return err
			}
			return leafErr(session.Show(sys.Stdout, f.Entries, leaf, func(w session.Warning) { invocation.Warn(sys.Stderr, []session.Warning{w}) }))
		},
	}
	c.Flags().StringVar(&leaf, "leaf", "", "entry id (or unique prefix) to show the path to")
	c.Flags().StringVar(&cwdFlag, "cwd", "", "working directory (default: the current one)")
	return c
}
