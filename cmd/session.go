package cmd

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"gopi/internal/filekind"
	"gopi/pkg/assemble"
	"gopi/pkg/session"
	"gopi/pkg/settings"
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

// sessionEnv is what the session commands share: the sessions root and
// the working directory, resolved without settings files.
func sessionEnv(sys *System, cwdFlag string) (root, cwd string, err error) {
	if cwd, err = resolveCwd(sys, cwdFlag); err != nil {
		return "", "", err
	}
	home, err := settings.GopiHome(sys.getenv)
	if err != nil {
		return "", "", err
	}
	return assemble.SessionsRoot(home), cwd, nil
}

// readPaused reads a session file with the collector paused.
func readPaused(path string) (*session.File, error) {
	return assemble.GCPaused(func() (*session.File, error) { return session.ReadFile(path) })
}

// readSession reads a session by path or id prefix, without the lock.
func readSession(sys *System, ref, cwdFlag string) (*session.File, error) {
	root, _, err := sessionEnv(sys, cwdFlag)
	if err != nil {
		return nil, err
	}
	path, err := session.Resolve(root, ref)
	if err != nil {
		if assemble.LooksLikePath(ref) {
			st, serr := os.Stat(ref)
			if serr != nil {
				return nil, usageErr("session %s: %s: give a session file or id (gopi session list shows the sessions of this folder)", ref, filekind.Problem(serr))
			}
			if !st.Mode().IsRegular() {
				return nil, usageErr("session %s is not a file (a folder?): give a session file or id", ref)
			}
		}
		return nil, usageErr("session %s: %v (gopi session list shows the sessions of this folder)", ref, err)
	}
	f, err := readPaused(path)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	warn(sys, f.Warnings)
	return f, nil
}

// warn says each warning on stderr.
func warn(sys *System, warns []session.Warning) {
	for _, w := range warns {
		fmt.Fprintf(sys.Stderr, "gopi: warning: %s\n", w)
	}
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
			root, cwd, err := sessionEnv(sys, cwdFlag)
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
			return session.WriteSummaries(sys.Stdout, session.Summaries(root, infos, readPaused), asJSON, all)
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
