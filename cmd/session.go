package cmd

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"gopi/internal/filekind"
	"gopi/pkg/ai"
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
	return filepath.Join(home, "sessions"), cwd, nil
}

// gcPaused reads a session with the collector paused (assemble.GCPaused):
// the session commands share one pause with the run's store.
func gcPaused[T any](read func() (T, error)) (T, error) { return assemble.GCPaused(read) }

// looksLikePath says whether a session reference names a file rather
// than an id (assemble.LooksLikePath).
func looksLikePath(ref string) bool { return assemble.LooksLikePath(ref) }

// readSession reads a session by path or id prefix, without the lock.
func readSession(sys *System, ref, cwdFlag string) (*session.File, error) {
	root, _, err := sessionEnv(sys, cwdFlag)
	if err != nil {
		return nil, err
	}
	path, err := session.Resolve(root, ref)
	if err != nil {
		if looksLikePath(ref) {
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
	f, err := gcPaused(func() (*session.File, error) { return session.ReadFile(path) })
	if err != nil {
		return nil, usageErr("%v", err)
	}
	for _, w := range f.Warnings {
		fmt.Fprintf(sys.Stderr, "gopi: warning: %s\n", w)
	}
	return f, nil
}

type sessionSummary struct {
	ID          string `json:"id"`
	ShortID     string `json:"shortId"` // the shortest prefix --session takes for this session alone
	File        string `json:"file"`
	Cwd         string `json:"cwd"`
	Modified    string `json:"modified"`
	Entries     int    `json:"entries"`
	FirstPrompt string `json:"firstPrompt"`
	NewestLeaf  string `json:"newestLeaf"`
	Name        string `json:"name,omitempty"`
}

func newSessionListCmd(sys *System) *cobra.Command {
	var all, asJSON bool
	var cwdFlag string
	c := &cobra.Command{
		Use:   "list",
		Short: "List the sessions of the working directory, newest first",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			root, cwd, err := sessionEnv(sys, cwdFlag)
			if err != nil {
				return err
			}
			infos, err := listSessions(root, cwd, all)
			if err != nil {
				return sessionErr(err)
			}
			scope := sessionIDsIn(root)
			var rows []sessionSummary
			for _, info := range infos {
				if s, ok := summarize(info); ok {
					s.ShortID = shortID(fileSessionID(info.Path, s.ID), scope)
					rows = append(rows, s)
				}
			}
			return printSummaries(sys.Stdout, rows, asJSON, all)
		},
	}
	c.Flags().BoolVar(&all, "all", false, "sessions of every folder")
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	c.Flags().StringVar(&cwdFlag, "cwd", "", "working directory (default: the current one)")
	return c
}

func listSessions(root, cwd string, all bool) ([]session.Info, error) {
	if !all {
		return session.List(root, cwd)
	}
	dirs, err := os.ReadDir(root)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []session.Info
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		files, _ := filepath.Glob(filepath.Join(root, d.Name(), "*.jsonl"))
		for _, f := range files {
			h, err := session.ReadHeader(f)
			st, serr := os.Stat(f)
			if err == nil && serr == nil {
				out = append(out, session.Info{Path: f, Header: h, ModTime: st.ModTime(), Size: st.Size()})
			}
		}
	}
	sortInfos(out)
	return out, nil
}

func summarize(info session.Info) (sessionSummary, bool) {
	f, err := gcPaused(func() (*session.File, error) { return session.ReadFile(info.Path) })
	if err != nil {
		return sessionSummary{}, false
	}
	s := sessionSummary{ID: f.Header.ID, File: info.Path, Cwd: f.Header.Cwd, Entries: len(f.Entries),
		Modified: info.ModTime.UTC().Format("2006-01-02 15:04"), Name: session.SessionName(f.Entries)}
	for _, e := range f.Entries {
		if e.Type == session.TypeMessage && e.Message != nil && e.Message.Role == ai.RoleUser {
			_, s.FirstPrompt = session.Preview(e, 60)
			break
		}
	}
	if n, ok := session.Newest(f.Entries); ok {
		s.NewestLeaf = n.ID
	}
	return s, true
}

// minShortID is the fewest characters gopi session list shows of an id:
// a UUIDv7's first 8 are its start time in units of about 65 seconds.
const minShortID = 8

// sessionIDsIn lists the ids of every session file under root, as
// --session (session.Resolve) matches them: from the file names, in every
// folder.
func sessionIDsIn(root string) []string {
	files, _ := filepath.Glob(filepath.Join(root, "*", "*.jsonl"))
	ids := make([]string, 0, len(files))
	for _, f := range files {
		ids = append(ids, fileSessionID(f, ""))
	}
	return ids
}

// fileSessionID is the id in a session file's name (<time>_<id>.jsonl),
// or else fallback.
func fileSessionID(path, fallback string) string {
	base := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	if _, id, ok := strings.Cut(base, "_"); ok && id != "" {
		return id
	}
	return fallback
}

// shortID is the shortest prefix of id, of at least minShortID characters,
// that no other id in scope starts with (a prefix never ends at a '-'); the
// whole id when another session has the same one.
func shortID(id string, scope []string) string {
	n, self := minShortID, false
	for _, other := range scope {
		if other == id && !self {
			self = true // the session's own file
			continue
		}
		common := 0
		for common < len(id) && common < len(other) && id[common] == other[common] {
			common++
		}
		n = max(n, common+1)
	}
	for n < len(id) && id[n-1] == '-' {
		n++
	}
	return id[:min(n, len(id))]
}

func printSummaries(w io.Writer, rows []sessionSummary, asJSON, folders bool) error {
	if asJSON {
		if rows == nil {
			rows = []sessionSummary{}
		}
		return json.NewEncoder(w).Encode(rows)
	}
	if len(rows) == 0 {
		_, err := fmt.Fprintln(w, "no sessions")
		return err
	}
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	head := "ID\tMODIFIED\tENTRIES\tNEWEST LEAF\tNAME\t"
	if folders {
		head += "FOLDER\t"
	}
	fmt.Fprintln(tw, head+"FIRST PROMPT")
	for _, r := range rows {
		name := r.Name
		if name == "" {
			name = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t", r.ShortID, r.Modified, r.Entries, r.NewestLeaf, session.OneLine(name, 30))
		if folders {
			fmt.Fprintf(tw, "%s\t", r.Cwd)
		}
		fmt.Fprintln(tw, r.FirstPrompt)
	}
	return tw.Flush()
}

func sortInfos(infos []session.Info) {
	sort.Slice(infos, func(i, j int) bool { return infos[i].ModTime.After(infos[j].ModTime) })
}
