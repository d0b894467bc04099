package cmd

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"gopi/internal/atomicfile"
	"gopi/pkg/export"
	"gopi/pkg/session"
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
	f, err := readSession(sys, opts.Session, opts.Cwd)
	if err != nil {
		return err
	}
	dest, err := exportDest(sys, "-o", opts.Output, f.Path)
	if err != nil {
		return err
	}
	render := func(w io.Writer) error {
		warns, err := export.Render(w, f, export.Options{Leaf: opts.Leaf})
		if errors.Is(err, session.ErrUnknownLeaf) || errors.Is(err, session.ErrAmbiguous) || errors.Is(err, session.ErrCycle) {
			return usageErr("--leaf: %v", err)
		}
		for _, w := range warns {
			fmt.Fprintf(sys.Stderr, "gopi: warning: %s\n", w)
		}
		return err
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
		var ce *classedError
		if errors.As(err, &ce) {
			return err
		}
		return usageErr("-o %s: %v (choose a file in a folder you can write to)", dest, err)
	}
	_, err = fmt.Fprintln(sys.Stdout, dest)
	return err
}

// exportDest is the file to write, "" for stdout: -o, or else pi's name
// for an export of the session file, in the working directory. flag names
// the output in messages (-o, rpc's outputPath).
func exportDest(sys *System, flag, output, sessionPath string) (string, error) {
	if output == "-" {
		return "", nil
	}
	wd, err := sys.Getwd()
	if err != nil {
		return "", fmt.Errorf("working directory: %w", err)
	}
	dest := output
	if dest == "" {
		dest = "gopi-session-" + strings.TrimSuffix(filepath.Base(sessionPath), ".jsonl") + ".html"
	}
	if !filepath.IsAbs(dest) {
		dest = filepath.Join(wd, dest)
	}
	if st, err := os.Stat(filepath.Dir(dest)); err != nil || !st.IsDir() {
		return "", usageErr(flag+" %s: folder %s does not exist", dest, filepath.Dir(dest))
	}
	st, err := os.Stat(dest)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return "", usageErr(flag+" %s: %v", dest, err)
	case st.IsDir():
		return "", usageErr(flag+" %s is a folder: give a file name", dest)
	case !st.Mode().IsRegular():
		return "", usageErr(flag+" %s is not a regular file (use -o - for stdout)", dest)
	default:
		if err := notASession(flag, dest, st, sessionPath); err != nil {
			return "", err
		}
	}
	return dest, nil
}

// notASession refuses to replace a session with its page: dest is the
// session file under any name (a link, another path to it), or any file
// whose first line is a session header.
func notASession(flag, dest string, st fs.FileInfo, sessionPath string) error {
	if ss, err := os.Stat(sessionPath); err == nil && os.SameFile(ss, st) {
		return usageErr(flag+" %s is the session file being exported: give another file name", dest)
	}
	if startsLikeSession(dest) {
		if _, err := session.ReadHeader(dest); err == nil {
			return usageErr(flag+" %s is a session file (its first line is a session header): give another file name", dest)
		}
	}
	return nil
}

// startsLikeSession reads at most 64 KiB of path: whether it holds a
// first line that names a session, worth reading as a header.
func startsLikeSession(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 64<<10)
	n, _ := io.ReadFull(f, head)
	line, _, found := bytes.Cut(head[:n], []byte("\n"))
	return (found || n < len(head)) && bytes.Contains(line, []byte(`"session"`))
}
