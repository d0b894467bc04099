// Package assemble builds a Runtime from typed settings: the model, the
// tools (built-in and custom), the hooks, the session store and the leaf
// it continues from; Reopen builds it again for another leaf, model,
// thinking level or a new session. Its promises: it reads no flags,
// settings files or process state (the caller resolves the settings and
// hands in the environment as Env); nothing is sent to a model; the
// settings are never changed, so a model switch lasts only for the
// Assembly that made it; and a refusal of the settings is an *Error whose
// ai.Class decides the caller's exit code.
package assemble

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"gopi/pkg/ai"
	"gopi/pkg/extension"
	"gopi/pkg/loop"
	"gopi/pkg/runtime"
	"gopi/pkg/sandbox"
	"gopi/pkg/session"
	"gopi/pkg/tools"
)

// Error is a refusal before anything ran, with the class that decides
// the caller's exit code.
type Error struct {
	Class ai.Class
	Err   error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Usagef is a usage or input error (ai.ClassUsage).
func Usagef(format string, a ...any) error {
	return &Error{Class: ai.ClassUsage, Err: fmt.Errorf(format, a...)}
}

// SessionErr is a session that could not be read or written (ai.ClassSession).
func SessionErr(err error) error { return &Error{Class: ai.ClassSession, Err: err} }

// Env is what the assembly takes from its process.
type Env struct {
	Environ []string
	Now     func() time.Time
	Stderr  io.Writer // warnings: the store's, hooks', model notes
}

// Getenv looks a variable up in Environ, the last setting winning.
func (e Env) Getenv(key string) string {
	for i := len(e.Environ) - 1; i >= 0; i-- {
		kv := e.Environ[i]
		if len(kv) > len(key) && kv[len(key)] == '=' && kv[:len(key)] == key {
			return kv[len(key)+1:]
		}
	}
	return ""
}

// SessionSettings choose the session store and its leaf.
type SessionSettings struct {
	Path     string // --session: a file or an id prefix
	Leaf     string // --leaf: an entry id or a unique prefix
	Continue bool   // -c
	None     bool   // --no-session: a memory store
	Fork     string // --fork: the session copied into a new one
	ID       string // --session-id
	Name     string // -n/--name as given
	NameSet  bool   // -n/--name was given (an empty one is refused)
	Dir      string // --session-dir; "" for Home/sessions/<folder of Cwd>
	NoSync   bool   // fsync never
	// Branch, with Fork and Leaf, copies only the path from the root to
	// Leaf (pi's fork and clone; session.Branch), not the whole file
	// (--fork), and continues from the copy's last entry.
	Branch bool
	// Parent is written into a new session's header as parentSession
	// (rpc's new_session with parentSession).
	Parent string
	// LockWait is how long opening an existing session waits for another
	// process to let go of its lock (rpc: a bridge restarting gopi on
	// the same file); 0 refuses at once.
	LockWait time.Duration
	// Newest: a session with entries continues from its newest entry
	// without -c, as pi's chat and rpc modes do; gopi run leaves it
	// false and asks for --leaf or -c.
	Newest bool
}

// Settings are the resolved, typed values of one invocation.
type Settings struct {
	Cwd  string // absolute working directory
	Home string // $GOPI_HOME: sessions, notes
	// Bare: no settings files were read; model notes are shown every time.
	Bare     bool
	Model    ModelSettings
	Thinking ai.ThinkingLevel
	// ThinkingExplicit: Thinking came from a flag, so it wins over the
	// level of "id:level".
	ThinkingExplicit bool
	// ClampThinking: a model without reasoning runs with thinking off,
	// and the Assembly's and the session's level say so (pi's chat and
	// rpc clamp the level to the model); gopi run keeps the level asked.
	ClampThinking bool
	MaxSteps      int
	MaxTokens     int
	Compaction    runtime.Compaction
	// CompactionModel is the "compaction": {"model": "provider/id"}
	// setting: the model that writes compaction summaries in place of the
	// run's; "" for the run's own.
	CompactionModel string
	Limits          loop.Limits
	Tools           []string     // the tools offered, built-in and custom, by name
	Custom          []tools.Tool // the custom tools among Tools
	Hooks           extension.HooksConfig
	// Secrets are the variables settings declare as secrets.
	Secrets      []string
	SystemPrompt string
	OutputSchema json.RawMessage // nil without one
	SpillDir     string          // bash's spill files
	Groups       *tools.Groups   // what bash calls left running
	Guard        *sandbox.Guard  // the sandbox and permission rules; nil: none
	// MoreTools adds tools to every registry built, after the built-in and
	// custom ones (MCP servers' tools: the caller starts the servers once);
	// its error stops the build and keeps its class.
	MoreTools func(env tools.Env, reg *tools.Registry) error
	Session   SessionSettings
	// Subagents configure the task tool's child runs.
	Subagents SubagentSettings
	// Origin names where a setting came from, for messages ("--max-budget-usd");
	// nil names the settings key.
	Origin func(key string) string
}

func (s *Settings) origin(key string) string {
	if s.Origin != nil {
		return s.Origin(key)
	}
	return fmt.Sprintf("setting %q", key)
}

// Resuming says whether the settings continue an existing session (whose
// model is then chosen once it is read).
func (s *Settings) Resuming() bool {
	ss := s.Session
	return ss.Path != "" || ss.Continue || ss.Fork != "" || ss.ID != ""
}

// Assembly is one invocation's open session and the Runtime built on it.
type Assembly struct {
	s        Settings
	env      Env
	choice   Choice
	chosen   bool
	thinking ai.ThinkingLevel
	store    session.Store
	file     string
	leaf     string
	name     string // the session's name, recorded by the first Runtime that prompts
	rt       *runtime.Runtime
	changes  *tools.Changes
	kept     bool // a closed session names the spill folder
	// firstSession: the session was the first in gopi's sessions folder,
	// which this invocation made.
	firstSession bool
	// compaction replaces the settings' (Want.Compaction); nil: theirs.
	compaction *runtime.Compaction
	// compactor is the compaction model, once resolved (compactionModel).
	compactor *resolvedCompactor
	// parent is what a child run's Assembly knows of its parent (the
	// task tool); zero for a top-level one.
	parent childOf
}

// New checks the settings and, for a new session, chooses the model:
// nothing touches the disk. Open builds the Runtime.
func New(s Settings, env Env) (*Assembly, error) {
	a := &Assembly{s: s, env: env, thinking: s.Thinking}
	if !s.Resuming() {
		ch, err := ChooseModel(env, s.Model, session.ModelState{})
		if err != nil {
			return nil, err
		}
		a.choice, a.chosen = ch, true
	}
	return a, nil
}

// Build is New and Open together.
func Build(s Settings, env Env) (*Assembly, error) {
	a, err := New(s, env)
	if err != nil {
		return nil, err
	}
	if err := a.Open(); err != nil {
		a.Close()
		return nil, err
	}
	return a, nil
}

// Open opens (or creates) the session store, chooses its leaf, the model
// of a resumed session, and builds the Runtime. On error the store, when
// one was opened, stays open until Close, so the caller can name it.
func (a *Assembly) Open() error {
	if err := a.openSession(a.s.Session); err != nil {
		return err
	}
	if !a.chosen {
		resumed := a.resumedModel()
		if a.thinking == "" && resumed.ThinkingLevel != "" {
			a.thinking = resumed.ThinkingLevel
		}
		ch, err := ChooseModel(a.env, a.s.Model, resumed)
		if err != nil {
			return err
		}
		a.choice, a.chosen = ch, true
	}
	a.settle()
	a.thinking = a.clamp(a.choice, a.thinking)
	rt, changes, err := a.build(a.choice, a.thinking, a.store, a.leaf, a.name)
	if err != nil {
		return err
	}
	a.rt, a.changes = rt, changes
	return nil
}

// Want is what Reopen builds a Runtime for.
type Want struct {
	Leaf       string  // the entry to continue from; "" for an empty session
	Model      *Choice // the model to switch to (ChooseModel); nil keeps the current one
	Thinking   ai.ThinkingLevel
	NewSession bool // start a new session; the current one is released once the Runtime is built
	// Parent, with NewSession, is the new session's parentSession.
	Parent string
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

// Reopen builds a Runtime for w on the open session, or on another one.
// On error the current Runtime and store stay in use. The settings are
// not changed: a model switch lasts for this Assembly's later Runtimes.
func (a *Assembly) Reopen(w Want) (*runtime.Runtime, error) {
	if w.Compaction != nil {
		prev := a.compaction
		a.compaction = w.Compaction
		rt, err := a.Reopen(Want{Leaf: w.Leaf, Model: w.Model, Thinking: w.Thinking, NewSession: w.NewSession, Parent: w.Parent, Session: w.Session})
		if err != nil {
			a.compaction = prev
		}
		return rt, err
	}
	choice, thinking := a.choice, w.Thinking
	if w.Model != nil {
		choice = *w.Model
	}
	// The name is the first session's: recorded by the first Runtime that
	// prompts, so every Runtime of it carries it until one did.
	store, file, leaf, name := a.store, a.file, w.Leaf, a.name
	other := w.NewSession || w.Session != nil
	if w.Session != nil && a.isOpen(*w.Session) {
		// The file open here (its lock is this Assembly's): read again
		// from the store that holds it, at its newest entry, with the
		// model and thinking level it last used, as pi reloads it.
		other = false
		n, _ := session.Newest(store.Entries())
		leaf = n.ID
		resumed := (&Assembly{store: store, leaf: leaf}).resumedModel()
		if thinking == "" {
			thinking = resumed.ThinkingLevel
		}
		if w.Model == nil && resumed.Provider != "" {
			ch, err := ChooseModel(a.env, a.s.Model, resumed)
			if err != nil {
				return nil, err
			}
			choice = ch
		}
	}
	if other {
		ss := SessionSettings{None: a.s.Session.None, Parent: w.Parent}
		if w.Session != nil {
			ss = *w.Session
		}
		ss.Dir, ss.NoSync = firstNonEmpty(ss.Dir, a.s.Session.Dir), ss.NoSync || a.s.Session.NoSync
		n := &Assembly{s: a.s, env: a.env}
		if err := n.openSession(ss); err != nil {
			if n.store != nil {
				n.store.Close()
			}
			return nil, err
		}
		store, file, leaf, name = n.store, n.file, n.leaf, n.name
		if w.Session != nil {
			resumed := n.resumedModel()
			if thinking == "" {
				thinking = resumed.ThinkingLevel
			}
			if w.Model == nil && resumed.Provider != "" {
				ch, err := ChooseModel(a.env, a.s.Model, resumed)
				if err != nil {
					store.Close()
					return nil, err
				}
				choice = ch
			}
		}
	}
	thinking = a.clamp(choice, thinking)
	rt, changes, err := a.build(choice, thinking, store, leaf, name)
	if err != nil {
		if other {
			store.Close()
		}
		return nil, err
	}
	if other {
		a.kept = a.kept || MentionsDir(a.store, a.file, a.s.SpillDir)
		a.store.Close()
		a.store, a.file, a.name = store, file, name
	}
	a.leaf, a.choice, a.thinking, a.rt, a.changes = leaf, choice, thinking, rt, changes
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

// Runtime is the last Runtime built; nil before Open succeeded.
func (a *Assembly) Runtime() *runtime.Runtime { return a.rt }

// Store is the open session store; nil before Open opened one.
func (a *Assembly) Store() session.Store { return a.store }

// File is the session file; "" for a memory store.
func (a *Assembly) File() string { return a.file }

// Leaf is the entry the last Runtime was built to continue from.
func (a *Assembly) Leaf() string { return a.leaf }

// Name is the session's name (-n), normalised; "" without one.
func (a *Assembly) Name() string { return a.name }

// Model is the model in use.
func (a *Assembly) Model() Choice { return a.choice }

// Thinking is the thinking level in use.
func (a *Assembly) Thinking() ai.ThinkingLevel { return a.thinking }

// Compaction is the automatic compaction the Runtimes are built with.
func (a *Assembly) Compaction() runtime.Compaction {
	if a.compaction != nil {
		return *a.compaction
	}
	return a.s.Compaction
}

// Changes records the files the last Runtime's tools changed.
func (a *Assembly) Changes() *tools.Changes { return a.changes }

// SpillKept says whether the open session, or one closed before it,
// names the spill folder, which must then be kept.
func (a *Assembly) SpillKept() bool {
	return a.kept || MentionsDir(a.store, a.file, a.s.SpillDir)
}

// Close releases the session store and its lock.
func (a *Assembly) Close() {
	if a.store != nil {
		a.store.Close()
	}
}

// resumeSettings returns the model and thinking level on the chosen path.
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

// clamp is the thinking level a Runtime of choice runs with: with
// Settings.ClampThinking, off for a model without reasoning, as pi
// clamps it (and records it).
func (a *Assembly) clamp(choice Choice, thinking ai.ThinkingLevel) ai.ThinkingLevel {
	if a.s.ClampThinking && !choice.Info.Reasoning && thinking != "" {
		return ai.ThinkingOff
	}
	return thinking
}

func (a *Assembly) resumedModel() session.ModelState {
	if a.leaf == "" {
		return session.ModelState{}
	}
	return session.ModelStateAt(a.store.Entries(), a.leaf)
}

// settle applies what the chosen model says about the run before it
// starts: the thinking level of "id:level" (a thinking level given as a
// flag wins, as in pi), the "not in the catalog" note (once per provider
// and model, see noteShown), and a word when thinking was asked of a
// model that has none.
func (a *Assembly) settle() {
	ch := a.choice
	if ch.Thinking != "" && !a.s.ThinkingExplicit {
		a.thinking = ch.Thinking
	}
	if ch.Note != "" {
		key := ch.Info.Provider + "/" + ch.Info.ID
		if a.s.Bare || !noteShown(a.s.Home, key) {
			fmt.Fprintln(a.env.Stderr, ch.Note)
		}
	}
	if a.thinking == "" || a.thinking == ai.ThinkingOff || ch.Info.Reasoning {
		return
	}
	from := "--thinking " + string(a.thinking)
	if ch.Thinking != "" && a.thinking == ch.Thinking {
		from = "the :" + string(a.thinking) + " of --model"
	}
	switch {
	case ch.Known:
		fmt.Fprintf(a.env.Stderr, "gopi: model %s does not support thinking; %s is ignored\n", ch.Info.ID, from)
	case ch.Info.Provider != "faux":
		// A model gopi does not know gets no thinking sent: say so, and
		// how to declare that it thinks.
		fmt.Fprintf(a.env.Stderr, "gopi: model %s is unknown, so %s is not sent: declare it with \"reasoning\": true under providers.%s.models in settings to send it\n",
			ch.Info.ID, from, ch.Info.Provider)
	}
}

// build assembles tools, hooks and a Runtime on store.
func (a *Assembly) build(choice Choice, thinking ai.ThinkingLevel, store session.Store, leaf, name string) (*runtime.Runtime, *tools.Changes, error) {
	s := &a.s
	changes := &tools.Changes{}
	if a.parent.changes != nil {
		changes = a.parent.changes // a child's changes are its parent's run's
	}
	secrets := toolSecrets(a.env, s, choice.Key)
	env := tools.Env{Cwd: s.Cwd, Environ: ScrubEnv(a.env.Environ, SecretNames(s.Model.Providers), choice.Key), TempDir: s.SpillDir, Changes: changes,
		Secrets: secrets, Groups: s.Groups, Guard: s.Guard}
	var builtin []string
	for _, n := range s.Tools {
		if slices.Contains(tools.AllNames, n) {
			builtin = append(builtin, n)
		}
	}
	builtins, err := tools.Builtins(tools.Options{}, builtin...)
	if err != nil {
		return nil, nil, Usagef("%v", err)
	}
	if len(builtin) == 0 {
		builtins = nil
	}
	all := append(builtins, s.Custom...)
	task := a.taskTool(store)
	if task != nil {
		all = append(all, task)
		if a.parent.tree == nil {
			a.parent.tree = runtime.NewTree()
		}
	}
	reg, err := tools.NewRegistry(env, all...)
	if err != nil {
		return nil, nil, err
	}
	if s.MoreTools != nil {
		if err := s.MoreTools(env, reg); err != nil {
			return nil, nil, err
		}
	}
	var ext runtime.Extensions
	hooks := s.Hooks
	if len(hooks.BeforeTool)+len(hooks.AfterTool) > 0 {
		host := extension.NewHost(extension.Options{Report: func(d extension.Diagnostic) { fmt.Fprintf(a.env.Stderr, "gopi: hook: %s\n", d) }, Secrets: env.Secrets})
		id := store.Header().ID
		if err := host.AddCommandHooks(hooks, extension.CommandEnv{Cwd: s.Cwd, Environ: env.Environ, SessionID: func() string { return id }, Source: "settings", Secrets: env.Secrets}); err != nil {
			return nil, nil, Usagef("hooks: %v", err)
		}
		ext = host
	}
	if s.Limits.USD > 0 && choice.Info.Prices == (ai.Prices{}) {
		return nil, nil, Usagef("%s: model %s/%s has no prices, so its spending cannot be counted in dollars: declare its prices under \"providers\" in settings, or use --max-budget-tokens",
			s.origin("maxBudgetUsd"), choice.Info.Provider, choice.Info.ID)
	}
	compactor, compactInfo, err := a.compactionModel(choice)
	if err != nil {
		return nil, nil, err
	}
	compaction := a.Compaction()
	compaction.Model = compactInfo
	rt, err := runtime.New(runtime.Config{
		ActiveLeaf: session.Ref(leaf), SystemPrompt: s.SystemPrompt, MaxSteps: s.MaxSteps, MaxTokens: s.MaxTokens,
		Thinking: thinking, Model: choice.Info, Compaction: compaction, Limits: s.Limits, OutputSchema: s.OutputSchema, SessionName: name,
	}, runtime.Deps{Model: choice.Model, CompactionModel: compactor, Tools: reg, Session: store, Extensions: ext, Secrets: env.Secrets, Now: a.env.Now, Stopwatch: stopwatch,
		Tree: a.parent.tree, TreeChild: a.parent.depth > 0})
	if err != nil {
		return nil, nil, Usagef("%v", err)
	}
	return rt, changes, nil
}

// stopwatch measures with the monotonic clock: durationMs in the session.
func stopwatch() func() time.Duration {
	t0 := time.Now()
	return func() time.Duration { return time.Since(t0) }
}
