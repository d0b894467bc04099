package session

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"gopi/pkg/ai"
)

// ReadFunc reads a whole session file (ReadFile, or ReadFile with the
// collector paused).
type ReadFunc func(path string) (*File, error)

func (read ReadFunc) orReadFile() ReadFunc {
	if read == nil {
		return ReadFile
	}
	return read
}

// ListAll returns the sessions of every folder under root, most recently
// modified first (gopi session list --all). Only headers are read; files
// whose header or stat fails are skipped. A missing root is an empty list.
func ListAll(root string) ([]Info, error) {
	dirs, err := os.ReadDir(root)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Info
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		files, _ := filepath.Glob(filepath.Join(root, d.Name(), "*.jsonl"))
		for _, f := range files {
			h, err := ReadHeader(f)
			st, serr := os.Stat(f)
			if err == nil && serr == nil {
				out = append(out, Info{Path: f, Header: h, ModTime: st.ModTime(), Size: st.Size()})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ModTime.After(out[j].ModTime) })
	return out, nil
}

// Summary is one row of gopi session list (and its --json object).
type Summary struct {
	ID          string `json:"id"`
	ShortID     string `json:"shortId"` // the shortest prefix --session takes for this session alone
	File        string `json:"file"`
	Cwd         string `json:"cwd"`
	Modified    string `json:"modified"`
	Entries     int    `json:"entries"`
	FirstPrompt string `json:"firstPrompt"`
	NewestLeaf  string `json:"newestLeaf"`
	Name        string `json:"name,omitempty"`
	// ParentSession and ParentToolCallID are a sub-agent's session's: the
	// parent session's file and the task call that started it.
	ParentSession    string `json:"parentSession,omitempty"`
	ParentToolCallID string `json:"parentToolCallId,omitempty"`
	parentShort      string // the parent's id as the PARENT column shows it
}

// Summarize reads the session info names with read (ReadFile when nil)
// and sums it up: its id, folder, size, name, newest leaf and the first
// 60 characters of its first prompt. ok is false when it cannot be read.
// ShortID is left empty (Summaries fills it in).
func Summarize(info Info, read ReadFunc) (s Summary, ok bool) {
	f, err := read.orReadFile()(info.Path)
	if err != nil {
		return Summary{}, false
	}
	s = Summary{ID: f.Header.ID, File: info.Path, Cwd: f.Header.Cwd, Entries: len(f.Entries),
		Modified: info.ModTime.UTC().Format("2006-01-02 15:04"), Name: SessionName(f.Entries)}
	if call := f.Header.ParentToolCallID(); call != "" {
		s.ParentSession, s.ParentToolCallID = f.Header.ParentSession, call
	}
	for _, e := range f.Entries {
		if e.Type == TypeMessage && e.Message != nil && e.Message.Role == ai.RoleUser {
			_, s.FirstPrompt = Preview(e, 60)
			break
		}
	}
	if n, ok := Newest(f.Entries); ok {
		s.NewestLeaf = n.ID
	}
	return s, true
}

// Summaries sums up each session of infos that can be read, in order,
// each with the shortest id prefix that names it alone among the
// sessions under root.
func Summaries(root string, infos []Info, read ReadFunc) []Summary {
	scope := IDsIn(root)
	var rows []Summary
	for _, info := range infos {
		if s, ok := Summarize(info, read); ok {
			s.ShortID = ShortID(fileSessionID(info.Path, s.ID), scope)
			if s.ParentToolCallID != "" {
				s.parentShort = "-"
				if id := fileSessionID(s.ParentSession, ""); id != "" {
					s.parentShort = ShortID(id, scope)
				}
			}
			rows = append(rows, s)
		}
	}
	return rows
}

// minShortID is the fewest characters gopi session list shows of an id:
// a UUIDv7's first 8 are its start time in units of about 65 seconds.
const minShortID = 8

// IDsIn lists the ids of every session file under root, as --session
// (Resolve) matches them: from the file names, in every folder.
func IDsIn(root string) []string {
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

// ShortID is the shortest prefix of id, of at least 8 characters, that no
// other id in scope starts with (a prefix never ends at a '-'); the whole
// id when another session has the same one.
func ShortID(id string, scope []string) string {
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

// WriteSummaries prints rows as gopi session list does: a table ("no
// sessions" when there are none; a FOLDER column with folders, a PARENT
// column, the parent session's id, when a row is a sub-agent's), or one
// JSON array.
func WriteSummaries(w io.Writer, rows []Summary, asJSON, folders bool) error {
	if asJSON {
		if rows == nil {
			rows = []Summary{}
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
	parents := slices.ContainsFunc(rows, func(r Summary) bool { return r.ParentToolCallID != "" })
	if parents {
		head += "PARENT\t"
	}
	fmt.Fprintln(tw, head+"FIRST PROMPT")
	for _, r := range rows {
		name := r.Name
		if name == "" {
			name = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t", r.ShortID, r.Modified, r.Entries, r.NewestLeaf, OneLine(name, 30))
		if folders {
			fmt.Fprintf(tw, "%s\t", r.Cwd)
		}
		if parents {
			fmt.Fprintf(tw, "%s\t", cmp.Or(r.parentShort, "-"))
		}
		fmt.Fprintln(tw, r.FirstPrompt)
	}
	return tw.Flush()
}
