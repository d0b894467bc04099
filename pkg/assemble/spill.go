package assemble

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gopi/internal/atomicfile"
	"gopi/pkg/ai"
	"gopi/pkg/session"
)

// MentionsDir reports whether the session on disk names dir: a tool
// result (its text or details) or a summary that points into it.
func MentionsDir(store session.Store, file, dir string) bool {
	if store == nil || file == "" || dir == "" {
		return false // --no-session keeps nothing on disk, spill files neither
	}
	if _, err := os.Lstat(dir); err != nil {
		return false
	}
	for _, e := range store.Entries() {
		if strings.Contains(e.Summary, dir) {
			return true
		}
		if m := e.Message; m != nil && messageMentions(m, dir) {
			return true
		}
	}
	return false
}

func messageMentions(m *ai.Message, dir string) bool {
	if strings.Contains(string(m.Details), dir) {
		return true
	}
	for _, c := range m.Content {
		if strings.Contains(c.Text, dir) {
			return true
		}
	}
	return false
}

// notesFile remembers which "not in the catalog" notes were shown, so a
// script that runs gopi in a loop is told once.
const notesFile = "notes.json"

// noteShown reports whether the note for key was shown before, and
// records it when it was not. The file is a convenience: one that cannot
// be read or written only means the note is shown again.
func noteShown(home, key string) bool {
	path := filepath.Join(home, notesFile)
	var notes struct {
		Shown []string `json:"shown"`
	}
	if b, err := os.ReadFile(path); err == nil && json.Unmarshal(b, &notes) == nil && slices.Contains(notes.Shown, key) {
		return true
	}
	notes.Shown = append(notes.Shown, key)
	if b, err := json.Marshal(notes); err == nil {
		_ = writeFileAtomic(path, append(b, '\n'))
	}
	return false
}

// writeFileAtomic replaces path with data (atomicfile.WriteFile), its
// folder made first: a reader never sees half a file.
func writeFileAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, 0o600, atomicfile.Bytes(data))
}
