package cmd

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"gopi/internal/atomicfile"
	"gopi/pkg/assemble"
	"gopi/pkg/export"
	"gopi/pkg/invocation"
)

type exportOptions struct {
	Session, Leaf, Output, Cwd string
}

func newSessionExportCmd(sys *System) *cobra.Command {
	var opts exportOptions
	c := &cobra.Command{
		Use:   "export SESSION",
		Short: "Write a session's whole tree as one self-contained HTML page",
		Long: `Write every entry of every branch of a session (a file, or a prefix of its id) as one
HTML page that opens offline and loads nothing from elsewhere: messages, thinking, tool
calls with their arguments and results, images. The path to --leaf (the newest entry
when not given) is the main column; the other branches are folded where they leave it.

Without -o the page is written to gopi-session-<session file name>.html in the current
folder, as pi --export names it; -o - writes it to stdout. The file is replaced at once
(a temporary file renamed), and the path written is printed.`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Session = args[0]
			return runSessionExport(sys, opts)
		},
	}
	c.Flags().StringVar(&opts.Leaf, "leaf", "", "entry id (or unique prefix) whose path is the main column")
	c.Flags().StringVarP(&opts.Output, "output", "o", "", "file to write (- for stdout)")
	c.Flags().StringVar(&opts.Cwd, "cwd", "", "working directory whose sessions an id refers to (default: the current one)")
	return c
}

func runSessionExport(sys *System, opts exportOptions) error {
	f, err := sys.ReadSession(opts.Session, opts.Cwd)
	if err != nil {
		return err
	}
	dest, err := exportDest(sys, "-o", opts.Output, f.Path)
	if err != nil {
		return err
	}
	render := func(w io.Writer) error {
		warns, err := export.Render(w, f, export.Options{Leaf: opts.Leaf})
		invocation.Warn(sys.Stderr, warns)
		return leafErr(err)
	}
	if dest == "" {
		return render(sys.Stdout)
	}
	// A new page is private (0600) like the session it comes from; a
	// replaced one keeps its mode.
	err = atomicfile.WriteFile(dest, 0o600, render)
	var unsynced *atomicfile.UnsyncedError
	if errors.As(err, &unsynced) {
		fmt.Fprintf(sys.Stderr, "gopi: warning: %s is written, but %v, so it may not survive a crash\n", dest, err)
		err = nil
	}
	if err != nil {
		var ce *assemble.Error
		if errors.As(err, &ce) {
			return err
		}
		return usageErr("-o %s: %v (choose a file in a folder you can write to)", dest, err)
	}
	_, err = fmt.Fprintln(sys.Stdout, dest)
	return err
}

// exportDest is the file to write, "" for stdout (export.Dest in the
// working directory; its refusals are usage errors). flag names the output
// in messages (-o, rpc's outputPath).
func exportDest(sys *System, flag, output, sessionPath string) (string, error) {
	if output == "-" {
		return "", nil
	}
	wd, err := sys.Getwd()
	if err != nil {
		return "", fmt.Errorf("working directory: %w", err)
	}
	dest, err := export.Dest(wd, flag, output, sessionPath)
	if err != nil {
		return "", usageErr("%v", err)
	}
	return dest, nil
}
