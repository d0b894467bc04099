package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gopi/pkg/ai"
	"gopi/pkg/ai/catalog"
)

// cutThinking takes a thinking level off the end of a model id, as pi's
// "sonnet:high" does. The id is cut at its last colon when what follows is
// a level. An id the catalog or settings know whole ("qwen3:8b" declared,
// or any tag after a model gopi does not know, as local servers name
// them) is kept whole; a known model followed by a word that is no level
// ("claude-sonnet-4-5:hgih") is a usage error naming the word.
func cutThinking(c *config, id string, customs map[string]customProvider) (string, ai.ThinkingLevel, error) {
	i := strings.LastIndexByte(id, ':')
	if i < 0 || knownID(id, customs) {
		return id, "", nil
	}
	base, suffix := id[:i], id[i+1:]
	if slices.Contains(ai.ThinkingLevels, ai.ThinkingLevel(suffix)) {
		return base, ai.ThinkingLevel(suffix), nil
	}
	if knownID(base, customs) {
		return "", "", usageErr("%s %q: unknown thinking level %q after the colon: use off, minimal, low, medium, high or xhigh",
			c.origin("model"), id, suffix)
	}
	return id, "", nil
}

// knownID says whether a built-in catalog or a declared provider lists id.
func knownID(id string, customs map[string]customProvider) bool {
	for _, p := range []string{"anthropic", "openai"} {
		if _, ok := catalog.Resolve(p, id); ok {
			return true
		}
	}
	for _, cp := range customs {
		if slices.ContainsFunc(cp.Models, func(m ai.Info) bool { return m.ID == id }) {
			return true
		}
	}
	return false
}

// settleChoice applies what the chosen model says about the run before it
// starts: the thinking level of "id:level" (a --thinking flag given
// explicitly wins, as in pi), the "not in the catalog" note (once per
// provider and model, see shownNotes), and a word when thinking was asked
// of a model that has none.
func settleChoice(sys *System, s *runSettings, choice modelChoice, bare bool) {
	if choice.thinking != "" {
		if f := s.cfg.flags.Lookup("thinking"); f == nil || !f.Changed {
			s.thinking = choice.thinking
		}
	}
	if choice.note != "" {
		key := choice.info.Provider + "/" + choice.info.ID
		if bare || !noteShown(s.cfg.home, key) {
			fmt.Fprintln(sys.Stderr, choice.note)
		}
	}
	if s.thinking != "" && s.thinking != ai.ThinkingOff && choice.known && !choice.info.Reasoning {
		from := "--thinking " + string(s.thinking)
		if choice.thinking != "" && s.thinking == choice.thinking {
			from = "the :" + string(s.thinking) + " of --model"
		}
		fmt.Fprintf(sys.Stderr, "gopi: model %s does not support thinking; %s is ignored\n", choice.info.ID, from)
	}
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

// writeFileAtomic replaces path with data through a temporary file in the
// same folder, so a reader never sees half a file.
func writeFileAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".notes-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// rank says how close to the run a setting was given: 3 a flag, 2 the
// environment, 1 a settings file, 0 unset.
func (c *config) rank(key string) int {
	if f := c.flags.Lookup(settingsKeys[key]); f != nil && f.Changed {
		return 3
	}
	if _, ok := c.env[key]; ok {
		return 2
	}
	if c.v.IsSet(key) {
		return 1
	}
	return 0
}
