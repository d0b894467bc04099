package assemble

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gopi/pkg/ai"
	"gopi/pkg/ai/catalog"
	"gopi/pkg/runtime"
	"gopi/pkg/session"
)

// Want is what Reopen builds a Runtime for.
type Want struct {
	Leaf string // the entry to continue from; "" for an empty session
	// ModelRef is "provider/id" (an "id:level" suffix allowed) to switch
	// to, resolved with the settings as --model is; "" keeps the model.
	ModelRef string
	// Model is a model already chosen (ChooseModel); it wins over
	// ModelRef. Neither keeps the current one.
	Model      *Choice
	Thinking   ai.ThinkingLevel
	NewSession bool // start a new session; the current one is released once the Runtime is built
	// Parent, with NewSession, is the new session's parentSession.
	Parent string
	// SwitchTo opens another existing session file (rpc's switch_session),
	// relative to the working directory, at its newest entry, with the
	// model and thinking level it last used; Leaf and Thinking are not
	// used.
	SwitchTo string
	// Fork starts a new session holding the path from the root to Leaf
	// of the open one, written next to it (rpc's fork and clone).
	Fork bool
	// Session opens another session as the command line would: Path and
	// Continue switch to an existing one, Fork (with Leaf) copies one into
	// a new file and continues from that entry. Leaf above is then not
	// used: the leaf is the one these settings choose. Dir and NoSync
	// default to the Assembly's. The model and thinking level fall back
	// to the ones the session last used when the settings name no model
	// and Model and Thinking are unset.
	Session *SessionSettings
	// Compaction, when set, replaces the settings' automatic compaction
	// for this Runtime and the later ones (rpc's set_auto_compaction), as
	// Model does the model.
	Compaction *runtime.Compaction
}

// reopening is what a Reopen builds on.
type reopening struct {
	choice   Choice
	thinking ai.ThinkingLevel
	store    session.Store
	file     string
	leaf     string
	name     string
	other    bool // store is another session's, opened for this Reopen
}

// Reopen builds a Runtime for w on the open session, or on another one.
// On error the current Runtime and store stay in use. The settings are
// not changed: a model switch lasts for this Assembly's later Runtimes.
// What the Assembly holds beside the session (MCP servers, guard, spill
// folder, process groups) is kept; a session left for another is
// released once the new Runtime is built.
func (a *Assembly) Reopen(w Want) (*runtime.Runtime, error) {
	if w.Compaction != nil {
		prev := a.compaction
		a.compaction = w.Compaction
		w.Compaction = nil
		rt, err := a.Reopen(w)
		if err != nil {
			a.compaction = prev
		}
		return rt, err
	}
	if err := a.resolveWant(&w); err != nil {
		return nil, err
	}
	// The name is the first session's: recorded by the first Runtime that
	// prompts, so every Runtime of it carries it until one did.
	r := reopening{choice: a.choice, thinking: w.Thinking, store: a.store, file: a.file, leaf: w.Leaf, name: a.name}
	if w.Model != nil {
		r.choice = *w.Model
	}
	r.other = w.NewSession || w.Session != nil
	if w.Session != nil && a.isOpen(*w.Session) {
		r.other = false
		if err := a.reload(&r, w); err != nil {
			return nil, err
		}
	}
	if r.other {
		if err := a.openOther(&r, w); err != nil {
			return nil, err
		}
	}
	return a.finish(r)
}

// resolveWant turns ModelRef into Model, and SwitchTo and Fork into
// Session.
func (a *Assembly) resolveWant(w *Want) error {
	if w.Model == nil && w.ModelRef != "" {
		ch, err := a.chooseRef(w.ModelRef)
		if err != nil {
			return err
		}
		w.Model = &ch
	}
	switch {
	case w.SwitchTo != "":
		path := w.SwitchTo
		if LooksLikePath(path) && !filepath.IsAbs(path) {
			path = filepath.Join(a.s.Cwd, path)
		}
		if _, err := os.Stat(path); LooksLikePath(path) && errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("sessionPath %s: no such session file", path)
		}
		// The switched session's own model and thinking level, as pi.
		w.Session, w.Thinking, w.Model = &SessionSettings{Path: path, Continue: true}, "", nil
	case w.Fork:
		// A fork or clone is a path copy written next to the current file, as pi's.
		w.Session = &SessionSettings{Fork: a.file, Leaf: w.Leaf, Branch: true, Dir: filepath.Dir(a.file)}
	}
	return nil
}

// reload reads the file open here again (its lock is this Assembly's)
// from the store that holds it, at its newest entry, with the model and
// thinking level it last used, as pi reloads it.
func (a *Assembly) reload(r *reopening, w Want) error {
	n, _ := session.Newest(r.store.Entries())
	r.leaf = n.ID
	return a.resume(r, w, (&Assembly{store: r.store, leaf: r.leaf}).resumedModel())
}

// resume takes the thinking level and model a session last used where w
// names none.
func (a *Assembly) resume(r *reopening, w Want, resumed session.ModelState) error {
	if r.thinking == "" {
		r.thinking = resumed.ThinkingLevel
	}
	if w.Model == nil && resumed.Provider != "" {
		ch, err := ChooseModel(a.env, a.s.Model, resumed)
		if err != nil {
			return err
		}
		r.choice = ch
	}
	return nil
}

// openOther opens the new session, or the other one, w asks for.
func (a *Assembly) openOther(r *reopening, w Want) error {
	ss := SessionSettings{None: a.s.Session.None, Parent: w.Parent}
	if w.Session != nil {
		ss = *w.Session
	}
	ss.Dir, ss.NoSync = firstNonEmpty(ss.Dir, a.s.Session.Dir), ss.NoSync || a.s.Session.NoSync
	n := &Assembly{s: a.s, env: a.env, held: a.held}
	if err := n.openSession(ss); err != nil {
		if n.store != nil {
			n.store.Close()
		}
		return err
	}
	r.store, r.file, r.leaf, r.name = n.store, n.file, n.leaf, n.name
	if w.Session == nil {
		return nil
	}
	if err := a.resume(r, w, n.resumedModel()); err != nil {
		r.store.Close()
		return err
	}
	return nil
}

// finish builds the Runtime of r and makes it the Assembly's.
func (a *Assembly) finish(r reopening) (*runtime.Runtime, error) {
	thinking := a.clamp(r.choice, r.thinking)
	rt, changes, err := a.build(r.choice, thinking, r.store, r.leaf, r.name)
	if err != nil {
		if r.other {
			r.store.Close()
		}
		return nil, err
	}
	if r.other {
		a.kept = a.kept || MentionsDir(a.store, a.file, a.held.spill)
		a.store.Close()
		a.store, a.file, a.name = r.store, r.file, r.name
	}
	a.leaf, a.choice, a.thinking, a.rt, a.changes = r.leaf, r.choice, thinking, rt, changes
	a.tracePrompts(rt)
	return rt, nil
}

// ChooseModel resolves provider and id with the Assembly's settings (keys,
// declared providers, retry), as a switch of model asks; the settings
// stay as they are.
func (a *Assembly) ChooseModel(provider, id string) (Choice, error) {
	m := a.s.Model
	m.Provider, m.ID, m.Thinking = provider, id, ""
	return ChooseModel(a.env, m, session.ModelState{})
}

// chooseRef resolves "provider/id" against the settings, as --model
// does (a thinking level after a colon is cut off); a note on a model
// the catalog does not know is said on stderr.
func (a *Assembly) chooseRef(ref string) (Choice, error) {
	prov, id, _ := strings.Cut(ref, "/")
	if prov == "" || id == "" {
		return Choice{}, Usagef("/model %q: give provider/id, e.g. anthropic/claude-sonnet-4-5 (gopi models lists them)", ref)
	}
	id, _, err := CutThinking(a.s.origin("model"), id, a.s.Model.Providers)
	if err != nil {
		return Choice{}, err
	}
	choice, err := a.ChooseModel(prov, id)
	if err != nil {
		return Choice{}, err
	}
	if choice.Note != "" {
		fmt.Fprintln(a.env.Stderr, choice.Note)
	}
	return choice, nil
}

// CutThinking splits "id:level" when level is a thinking level and id
// is not itself a known model id (a built-in catalog's or one declared
// in providers). An unknown level after a known id is a usage error,
// origin naming where the model was given.
func CutThinking(origin, id string, providers map[string]Provider) (string, ai.ThinkingLevel, error) {
	i := strings.LastIndexByte(id, ':')
	if i < 0 || knownID(id, providers) {
		return id, "", nil
	}
	base, suffix := id[:i], id[i+1:]
	if slices.Contains(ai.ThinkingLevels, ai.ThinkingLevel(suffix)) {
		return base, ai.ThinkingLevel(suffix), nil
	}
	if knownID(base, providers) {
		return "", "", Usagef("%s %q: unknown thinking level %q after the colon: use off, minimal, low, medium, high or xhigh",
			origin, id, suffix)
	}
	return id, "", nil
}

// knownID says whether a built-in catalog or a declared provider lists id.
func knownID(id string, providers map[string]Provider) bool {
	for _, p := range []string{"anthropic", "openai"} {
		if _, ok := catalog.Resolve(p, id); ok {
			return true
		}
	}
	for _, p := range providers {
		if slices.ContainsFunc(p.Models, func(m ai.Info) bool { return m.ID == id }) {
			return true
		}
	}
	return false
}

// isOpen reports whether ss names an existing session, not a fork of
// one, and it is the file this Assembly has open.
func (a *Assembly) isOpen(ss SessionSettings) bool {
	if a.file == "" || ss.Path == "" || ss.Fork != "" || ss.None {
		return false
	}
	path, err := a.s.resolveSession(SessionsRoot(a.s.Home), ss, ss.Path)
	if err != nil {
		return false
	}
	st, err := os.Stat(path)
	if err != nil {
		return false
	}
	open, err := os.Stat(a.file)
	return err == nil && os.SameFile(st, open)
}
